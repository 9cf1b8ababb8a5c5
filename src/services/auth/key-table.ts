// Where keys created at runtime are kept (issue #25, docs/admin-api.md "Keys"): one table per
// storage driver (memory, sqlite, Redis), beside the gateway's store. Every instance keeps the
// whole table in memory (src/services/auth/runtime-keys.ts) and reloads it when the table's
// version moves, so authentication never waits on the store.
import type { BudgetSpec } from '../../infra/config/budget-spec.ts';

/** A key as stored: the secret only as its SHA-256 digest (hex). */
export type StoredKey = {
  id: string;
  workspace: string;
  models: string[];
  limits: { rpm: number; tpm: number; concurrency: number };
  budget: BudgetSpec | null;
  labels: Record<string, string>;
  /** Epoch ms; null = never. */
  expires_at: number | null;
  disabled: boolean;
  created_at: number;
  updated_at: number;
  secret_sha256: string;
  /** The last 4 characters of the secret, so an operator can tell two secrets apart. */
  secret_hint: string;
  /** A rotated-away secret still accepted until `previous_valid_until` (the rotation's grace). */
  previous_sha256: string | null;
  previous_valid_until: number | null;
  /** Bumped by every write: a write names the revision it read and fails if another came first. */
  rev: number;
};

export type ReplaceResult = 'ok' | 'missing' | 'conflict';

/**
 * Each write is one atomic step that also bumps the table's version, which the other instances
 * poll. `replace` is a compare-and-set on `rev`, so two operators editing one key on two
 * instances cannot lose each other's change silently (the loser reads again and retries).
 */
export interface KeyTable {
  /** A number that changes with every write. */
  version(): Promise<string>;
  /** Every stored key (bounded by the admin API's cap on runtime keys). */
  all(): Promise<StoredKey[]>;
  get(id: string): Promise<StoredKey | undefined>;
  /** Inserts unless the id exists (false then). */
  create(key: StoredKey): Promise<boolean>;
  /** Writes `key` (its rev already bumped) if the stored rev is `expectRev`. */
  replace(key: StoredKey, expectRev: number): Promise<ReplaceResult>;
  /** True when it existed. */
  delete(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The `memory` driver's table: this process only. */
export class MemoryKeyTable implements KeyTable {
  readonly #keys = new Map<string, string>();
  #version = 0;

  async version(): Promise<string> {
    return String(this.#version);
  }
  async all(): Promise<StoredKey[]> {
    return [...this.#keys.values()].map((j) => JSON.parse(j) as StoredKey);
  }
  async get(id: string): Promise<StoredKey | undefined> {
    const j = this.#keys.get(id);
    return j === undefined ? undefined : (JSON.parse(j) as StoredKey);
  }
  async create(key: StoredKey): Promise<boolean> {
    if (this.#keys.has(key.id)) return false;
    this.#keys.set(key.id, JSON.stringify(key));
    this.#version++;
    return true;
  }
  async replace(key: StoredKey, expectRev: number): Promise<ReplaceResult> {
    const j = this.#keys.get(key.id);
    if (j === undefined) return 'missing';
    if ((JSON.parse(j) as StoredKey).rev !== expectRev) return 'conflict';
    this.#keys.set(key.id, JSON.stringify(key));
    this.#version++;
    return 'ok';
  }
  async delete(id: string): Promise<boolean> {
    const had = this.#keys.delete(id);
    if (had) this.#version++;
    return had;
  }
  async close(): Promise<void> {}
}
