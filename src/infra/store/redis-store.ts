import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import {
  countedBytes,
  StoreQuotaError,
  type ClaimOptions,
  type Claimed,
  type CountedDoc,
  type Doc,
  type Store,
} from './store.ts';

// Layout (prefix `polygate:`):
//   doc:<ns>:<id>    the document as JSON {workspace, data, dueAt, expiresAt}; expiresAt is its TTL
//   lease:<ns>:<id>  the token of the worker that claimed it
//   due:<ns>         sorted set of ids by the time they may next be claimed: dueAt, and while a
//                    lease runs, the lease's end (so leased documents leave the due range, and a
//                    crashed holder's document comes back into it when the lease runs out)
//   counted:<ns>     hash id -> "<bytes> <workspace>" for documents written by putCounted
//   usage:<ws>       the workspace's counted bytes (INCRBY / DECRBY)
//   expiring:<ws>    sorted set "<ns>\n<id>" by expiresAt, of counted documents that expire: a TTL
//                    removes the document without telling anyone, so a counted write first takes
//                    the workspace's expired members off its total
// Every step that reads and writes is one Lua script, atomic against other instances. The
// scripts name document keys they build from ids, which a single Redis (or a replica set) allows;
// Redis Cluster is not supported.

/** Takes a counted document's bytes off its workspace (ARGV prefix, ns, id); shared by the scripts below. */
const uncount = `
local function uncount(prefix, ns, id)
  local v = redis.call('HGET', prefix .. 'counted:' .. ns, id)
  if not v then return end
  local sp = string.find(v, ' ', 1, true)
  local ws = string.sub(v, sp + 1)
  redis.call('DECRBY', prefix .. 'usage:' .. ws, tonumber(string.sub(v, 1, sp - 1)))
  redis.call('HDEL', prefix .. 'counted:' .. ns, id)
  redis.call('ZREM', prefix .. 'expiring:' .. ws, ns .. '\\n' .. id)
end
`;

// ARGV[5..7]: prefix, ns, id (for uncount).
const createScript = `${uncount}
local ok
if ARGV[3] ~= '' then ok = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) else ok = redis.call('SET', KEYS[1], ARGV[1], 'NX') end
if not ok then return 0 end
uncount(ARGV[5], ARGV[6], ARGV[7])
redis.call('DEL', KEYS[3])
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4]) end
return 1
`;

// ARGV[6..7]: prefix, ns (for uncount; the id is ARGV[4]).
const putScript = `${uncount}
if ARGV[5] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[5] then return 0 end
uncount(ARGV[6], ARGV[7], ARGV[4])
if ARGV[3] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3]) else redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4]) else redis.call('ZREM', KEYS[2], ARGV[4]) end
redis.call('DEL', KEYS[3])
return 1
`;

const deleteScript = `${uncount}
uncount(ARGV[1], ARGV[2], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
return 1
`;

/**
 * A counted write, all or nothing. KEYS: usage:<ws>, expiring:<ws>. ARGV: prefix, workspace, now,
 * limit, then per document ns, id, json, dueAt, expiresAt, bytes. Answers {1} when written, or
 * {0, used} when the workspace would pass its limit.
 */
const putCountedScript = `${uncount}
local prefix, ws, now, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local function replaced()
  local n = 0
  for i = 5, #ARGV, 6 do
    local v = redis.call('HGET', prefix .. 'counted:' .. ARGV[i], ARGV[i + 1])
    if v then n = n + tonumber(string.sub(v, 1, string.find(v, ' ', 1, true) - 1)) end
  end
  return n
end
local adding = 0
for i = 5, #ARGV, 6 do adding = adding + tonumber(ARGV[i + 5]) end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used - replaced() + adding > limit then
  -- Expired members first (a bounded batch per call), then the check again.
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)) do
    local nl = string.find(m, '\\n', 1, true)
    local ns, id = string.sub(m, 1, nl - 1), string.sub(m, nl + 1)
    uncount(prefix, ns, id)
    redis.call('DEL', prefix .. 'doc:' .. ns .. ':' .. id, prefix .. 'lease:' .. ns .. ':' .. id)
    redis.call('ZREM', prefix .. 'due:' .. ns, id)
  end
  used = tonumber(redis.call('GET', KEYS[1]) or '0')
  if used - replaced() + adding > limit then return {0, used} end
end
for i = 5, #ARGV, 6 do
  local ns, id, json, due, exp, bytes = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  uncount(prefix, ns, id)
  local key = prefix .. 'doc:' .. ns .. ':' .. id
  if exp ~= '' then redis.call('SET', key, json, 'PXAT', exp) else redis.call('SET', key, json) end
  if due ~= '' then redis.call('ZADD', prefix .. 'due:' .. ns, due, id) else redis.call('ZREM', prefix .. 'due:' .. ns, id) end
  redis.call('DEL', prefix .. 'lease:' .. ns .. ':' .. id)
  redis.call('HSET', prefix .. 'counted:' .. ns, id, bytes .. ' ' .. ws)
  if exp ~= '' then redis.call('ZADD', KEYS[2], exp, ns .. '\\n' .. id) end
  redis.call('INCRBY', KEYS[1], bytes)
end
return {1}
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
  pgCreate(
    doc: string,
    due: string,
    lease: string,
    json: string,
    dueAt: string,
    expiresAt: string,
    id: string,
    prefix: string,
    ns: string,
    id2: string,
  ): Promise<number>;
  pgPut(
    doc: string,
    due: string,
    lease: string,
    json: string,
    dueAt: string,
    expiresAt: string,
    id: string,
    token: string,
    prefix: string,
    ns: string,
  ): Promise<number>;
  pgDelete(doc: string, lease: string, due: string, prefix: string, ns: string, id: string): Promise<number>;
  pgPutCounted(usage: string, expiring: string, ...args: string[]): Promise<[number, number?]>;
  pgClaim(
    due: string,
    now: number,
    limit: number,
    leaseMs: number,
    token: string,
    docPrefix: string,
    leasePrefix: string,
  ): Promise<string[]>;
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
    this.client.defineCommand('pgDelete', { numberOfKeys: 3, lua: deleteScript });
    this.client.defineCommand('pgPutCounted', { numberOfKeys: 2, lua: putCountedScript });
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
    const r = await this.#r.pgCreate(
      this.#doc(ns, doc.id),
      this.#due(ns),
      this.#lease(ns, doc.id),
      RedisStore.#json(doc),
      num(doc.dueAt),
      num(doc.expiresAt),
      doc.id,
      this.prefix,
      ns,
      doc.id,
    );
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
      this.prefix,
      ns,
    );
    return r === 1;
  }

  async delete(ns: string, id: string): Promise<void> {
    await this.#r.pgDelete(this.#doc(ns, id), this.#lease(ns, id), this.#due(ns), this.prefix, ns, id);
  }

  async putCounted(workspace: string, docs: CountedDoc[], limit: number): Promise<void> {
    const args: string[] = [this.prefix, workspace, String(Date.now()), String(limit)];
    let adding = 0;
    for (const { ns, doc } of docs) {
      const json = RedisStore.#json({ ...doc, workspace });
      // The document's data, as in the other drivers, not the envelope Redis keeps around it.
      const bytes = countedBytes(JSON.stringify(doc.data));
      adding += bytes;
      args.push(ns, doc.id, json, num(doc.dueAt), num(doc.expiresAt), String(bytes));
    }
    const [ok, used] = await this.#r.pgPutCounted(
      `${this.prefix}usage:${workspace}`,
      `${this.prefix}expiring:${workspace}`,
      ...args,
    );
    if (ok !== 1) throw new StoreQuotaError(workspace, Number(used), adding, limit);
  }

  async storedBytes(workspace: string): Promise<number> {
    return Number((await this.client.get(`${this.prefix}usage:${workspace}`)) ?? 0);
  }

  async claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]> {
    const token = randomUUID();
    const flat = await this.#r.pgClaim(
      this.#due(ns),
      opts.now,
      opts.limit,
      opts.leaseMs,
      token,
      `${this.prefix}doc:${ns}:`,
      `${this.prefix}lease:${ns}:`,
    );
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
