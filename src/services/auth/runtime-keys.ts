// Keys created at runtime (issue #25, docs/admin-api.md "Keys"): every instance holds the whole
// table in memory, found by secret digest as the YAML keys are (key-ring.ts), so a request never
// waits on the store. The table's version is polled (a GET on Redis, a one-row read on sqlite);
// when it moves, the table is read again, so a key created, rotated, disabled or deleted on one
// instance takes effect on every instance sharing the store within one poll interval.
import { hash } from 'node:crypto';
import type { Logger } from 'pino';
import { globMatcher, sameDigest, secretDigest, type ApiKey, type KeyRing } from './key-ring.ts';
import type { KeyTable, StoredKey } from './key-table.ts';

/** A secret that matches a key that may not be used now: why, in words safe to show its holder. */
export type KeyRefusal = { id: string; refused: string };

/** Adds a key (its current secret, and a rotated-away one in its grace) to the maps. */
function enter(byId: Map<string, StoredKey>, byDigest: Map<string, Entry>, key: StoredKey): void {
  const api: ApiKey = {
    id: key.id,
    workspace: key.workspace,
    allows: globMatcher(key.models.length ? key.models : ['*']),
    limits: { ...key.limits },
    ...(key.budget ? { budget: key.budget } : {}),
  };
  byId.set(key.id, key);
  const current = Buffer.from(key.secret_sha256, 'hex');
  byDigest.set(current.toString('latin1'), { hash: current, key, api, previous: false });
  if (key.previous_sha256) {
    const old = Buffer.from(key.previous_sha256, 'hex');
    byDigest.set(old.toString('latin1'), { hash: old, key, api, previous: true });
  }
}

export const isRefusal = (k: ApiKey | KeyRefusal): k is KeyRefusal => 'refused' in k;

/** A write of this instance: the key as written, or the id deleted. */
type Written = StoredKey | { deleted: string };

type Entry = { hash: Buffer; key: StoredKey; api: ApiKey; previous: boolean };

export const sha256Hex = (s: string): string => hash('sha256', s, 'hex');

/** Besides version polls: a full read this often, in case a version number repeated (a Redis emptied and refilled). */
const fullReadMs = 30_000;

export class RuntimeKeys {
  readonly table: KeyTable;
  /** The clock expiry and rotation grace are judged by; a test may replace it. */
  now: () => number = Date.now;
  #byDigest = new Map<string, Entry>();
  #byId = new Map<string, StoredKey>();
  #version: string | undefined;
  #readAt = 0;
  #running: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #warnedAt = 0;
  /** Set while the table's rows are being read: this instance's writes meanwhile. */
  #replay: Written[] | undefined;
  readonly #log: Logger;

  constructor(table: KeyTable, log: Logger) {
    this.table = table;
    this.#log = log;
  }

  /** Polls the table's version every `pollMs` (not for a table only this process writes). */
  start(pollMs: number): void {
    this.#timer = setInterval(() => {
      this.sync().catch((err: unknown) => {
        const now = Date.now();
        if (now - this.#warnedAt < 10_000) return;
        this.#warnedAt = now;
        this.#log.warn({ err }, 'runtime keys: the key table cannot be read; the last copy stays in force');
      });
    }, pollMs);
    this.#timer.unref();
  }

  /**
   * Reads the table again when its version moved. Calls while a read runs share one more read
   * after it, so a caller that has just written sees its write when this resolves.
   */
  sync(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = async (): Promise<void> => {
      do {
        this.#again = false;
        await this.#read();
      } while (this.#again);
    };
    this.#running = run().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #read(): Promise<void> {
    // The version is read before the rows: a write between the two is seen again at the next poll.
    const version = await this.table.version();
    if (version === this.#version && Date.now() - this.#readAt < fullReadMs) return;
    // Own writes made while the rows are read may be missing from them: they are applied again.
    const replay: Written[] = [];
    this.#replay = replay;
    let rows: StoredKey[];
    try {
      rows = await this.table.all();
    } finally {
      this.#replay = undefined;
    }
    const byDigest = new Map<string, Entry>();
    const byId = new Map<string, StoredKey>();
    for (const key of rows) enter(byId, byDigest, key);
    this.#byDigest = byDigest;
    this.#byId = byId;
    for (const w of replay) this.applyWrite(w);
    this.#version = version;
    this.#readAt = Date.now();
  }

  /**
   * This instance's own write, in force here at once without reading the whole table again (a
   * bulk of creates would read it once per key). The version is left as it was, so the next poll
   * reads the table anyway and picks up whatever other instances wrote meanwhile.
   */
  applyWrite(key: Written): void {
    this.#replay?.push(key);
    const id = 'deleted' in key ? key.deleted : key.id;
    const before = this.#byId.get(id);
    if (before) {
      this.#byId.delete(id);
      for (const d of [before.secret_sha256, before.previous_sha256])
        if (d) this.#byDigest.delete(Buffer.from(d, 'hex').toString('latin1'));
    }
    if (!('deleted' in key)) enter(this.#byId, this.#byDigest, key);
  }

  /** The key of a presented secret's digest; a refusal when it is disabled or expired; undefined when unknown. */
  byDigest(presented: string): ApiKey | KeyRefusal | undefined {
    if (this.#byDigest.size === 0) return undefined;
    const e = this.#byDigest.get(presented);
    if (!e || !sameDigest(presented, e.hash)) return undefined;
    const now = this.now();
    // A rotated-away secret past its grace is an unknown secret: nothing about the key is said.
    if (e.previous && (e.key.previous_valid_until ?? 0) <= now) return undefined;
    if (e.key.disabled)
      return { id: e.key.id, refused: 'this API key is disabled; ask the gateway operator to enable it' };
    if (e.key.expires_at !== null && e.key.expires_at <= now)
      return { id: e.key.id, refused: `this API key expired at ${new Date(e.key.expires_at).toISOString()}` };
    return e.api;
  }

  /** The key as last read (sync first for a fresh copy). */
  get(id: string): StoredKey | undefined {
    return this.#byId.get(id);
  }

  /** Every runtime key as last read. */
  list(): StoredKey[] {
    return [...this.#byId.values()];
  }

  get size(): number {
    return this.#byId.size;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running?.catch(() => {});
    await this.table.close();
  }
}

/**
 * A presented credential against the config file's keys, then the runtime ones. A runtime key
 * whose id the file has since taken (a reload added it) is not used: the file wins, as it does in
 * the admin API's list, so one id never names two keys with two sets of limits.
 */
export function authenticateKey(
  ring: KeyRing,
  runtimeKeys: RuntimeKeys | undefined,
  credential: string | undefined,
): ApiKey | KeyRefusal | undefined {
  if (!credential) return undefined;
  // Hashed once for both: the file's keys and the runtime ones are found by the same digest.
  const presented = secretDigest(credential);
  const fromFile = ring.byDigest(presented);
  if (fromFile) return fromFile;
  const k = runtimeKeys?.byDigest(presented);
  return k && ring.has(k.id) ? undefined : k;
}
