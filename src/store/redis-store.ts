import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { ClaimOptions, Claimed, Doc, Store } from './store.ts';

// Layout (prefix `polygate:`):
//   doc:<ns>:<id>    the document as JSON {workspace, data, dueAt, expiresAt}; expiresAt is its TTL
//   lease:<ns>:<id>  the token of the worker that claimed it
//   due:<ns>         sorted set of ids by the time they may next be claimed: dueAt, and while a
//                    lease runs, the lease's end (so leased documents leave the due range, and a
//                    crashed holder's document comes back into it when the lease runs out)
// Every step that reads and writes is one Lua script, atomic against other instances. The
// scripts name document keys they build from ids, which a single Redis (or a replica set) allows;
// Redis Cluster is not supported.

const createScript = `
local ok
if ARGV[3] ~= '' then ok = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) else ok = redis.call('SET', KEYS[1], ARGV[1], 'NX') end
if not ok then return 0 end
redis.call('DEL', KEYS[3])
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4]) end
return 1
`;

const putScript = `
if ARGV[5] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[5] then return 0 end
if ARGV[3] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3]) else redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4]) else redis.call('ZREM', KEYS[2], ARGV[4]) end
redis.call('DEL', KEYS[3])
return 1
`;

/** Leases due documents: bumps each one's score to the lease's end and records the token. */
const claimScript = `
local now, limit, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
while #out / 2 < limit do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit - #out / 2)
  if #batch == 0 then break end
  for _, id in ipairs(batch) do
    local json = redis.call('GET', ARGV[5] .. id)
    if json then
      redis.call('ZADD', KEYS[1], now + lease, id)
      redis.call('SET', ARGV[6] .. id, ARGV[4], 'PX', lease * 2 + 60000)
      out[#out + 1] = id
      out[#out + 1] = json
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
return out
`;

type Scripted = Redis & {
  pgCreate(doc: string, due: string, lease: string, json: string, dueAt: string, expiresAt: string, id: string): Promise<number>;
  pgPut(doc: string, due: string, lease: string, json: string, dueAt: string, expiresAt: string, id: string, token: string): Promise<number>;
  pgClaim(due: string, now: number, limit: number, leaseMs: number, token: string, docPrefix: string, leasePrefix: string): Promise<string[]>;
};

type Stored = { workspace: string; data: unknown; dueAt: number | null; expiresAt: number | null };

/**
 * The `redis` driver: several gateway instances share one Redis (ioredis). Stored responses,
 * tasks and the callback queue live here, and `claimDue` leases make one instance at a time work
 * on a task; a holder that dies leaves its lease to expire, then another instance takes over.
 */
export class RedisStore implements Store {
  readonly driver = 'redis';
  readonly client: Redis;
  readonly prefix: string;
  readonly #r: Scripted;

  constructor(url: string, prefix = 'polygate:') {
    // Commands issued before the connection is up wait for it; a request fails after a few
    // reconnection attempts instead of hanging while Redis is away.
    // Loaded here, not at import: ioredis costs a quarter second of start-up that gateways on
    // memory or sqlite storage should not pay.
    const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.client = new Client(url, { maxRetriesPerRequest: 3, connectionName: 'polygate' });
    this.client.on('error', () => {
      // ioredis reconnects by itself; failed commands reject where they were issued.
    });
    this.client.defineCommand('pgCreate', { numberOfKeys: 3, lua: createScript });
    this.client.defineCommand('pgPut', { numberOfKeys: 3, lua: putScript });
    this.client.defineCommand('pgClaim', { numberOfKeys: 1, lua: claimScript });
    this.#r = this.client as Scripted;
    this.prefix = prefix;
  }

  /** Resolves once Redis answers, so a gateway with a wrong URL fails at start, not on the first request. */
  async ready(): Promise<void> {
    await this.client.ping();
  }

  #doc = (ns: string, id: string): string => `${this.prefix}doc:${ns}:${id}`;
  #lease = (ns: string, id: string): string => `${this.prefix}lease:${ns}:${id}`;
  #due = (ns: string): string => `${this.prefix}due:${ns}`;

  static #json<T>(doc: Doc<T>): string {
    const s: Stored = { workspace: doc.workspace, data: doc.data, dueAt: doc.dueAt, expiresAt: doc.expiresAt ?? null };
    return JSON.stringify(s);
  }

  static #parse<T>(id: string, json: string): Doc<T> {
    const s = JSON.parse(json) as Stored;
    return { id, workspace: s.workspace, data: s.data as T, dueAt: s.dueAt, expiresAt: s.expiresAt };
  }

  async get<T>(ns: string, id: string, workspace?: string): Promise<Doc<T> | undefined> {
    const json = await this.client.get(this.#doc(ns, id));
    if (json === null) return undefined;
    const doc = RedisStore.#parse<T>(id, json);
    // The TTL has millisecond precision already; this covers a read in the same millisecond.
    if (doc.expiresAt != null && doc.expiresAt <= Date.now()) return undefined;
    if (workspace !== undefined && doc.workspace !== workspace) return undefined;
    return doc;
  }

  async create<T>(ns: string, doc: Doc<T>): Promise<boolean> {
    const r = await this.#r.pgCreate(this.#doc(ns, doc.id), this.#due(ns), this.#lease(ns, doc.id), RedisStore.#json(doc), num(doc.dueAt), num(doc.expiresAt), doc.id);
    return r === 1;
  }

  async put<T>(ns: string, doc: Doc<T>, opts: { token?: string } = {}): Promise<boolean> {
    const r = await this.#r.pgPut(
      this.#doc(ns, doc.id),
      this.#due(ns),
      this.#lease(ns, doc.id),
      RedisStore.#json(doc),
      num(doc.dueAt),
      num(doc.expiresAt),
      doc.id,
      opts.token ?? '',
    );
    return r === 1;
  }

  async delete(ns: string, id: string): Promise<void> {
    await this.client.multi().del(this.#doc(ns, id), this.#lease(ns, id)).zrem(this.#due(ns), id).exec();
  }

  async claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]> {
    const token = randomUUID();
    const flat = await this.#r.pgClaim(this.#due(ns), opts.now, opts.limit, opts.leaseMs, token, `${this.prefix}doc:${ns}:`, `${this.prefix}lease:${ns}:`);
    const out: Claimed<T>[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ ...RedisStore.#parse<T>(flat[i], flat[i + 1]), token });
    return out;
  }

  async close(): Promise<void> {
    if (this.client.status === 'end') return;
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

const num = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(Math.round(v)));
