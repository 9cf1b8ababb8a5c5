import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { KeyTable, ReplaceResult, StoredKey } from './key-table.ts';

const schema = `
CREATE TABLE IF NOT EXISTS runtime_keys (id TEXT PRIMARY KEY, rev INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runtime_keys_version (one INTEGER PRIMARY KEY CHECK (one = 1), n INTEGER NOT NULL);
INSERT OR IGNORE INTO runtime_keys_version (one, n) VALUES (1, 0);
`;

/**
 * The `sqlite` driver's table, beside the store's in the same file (its own connection, as the
 * usage ledger has). Each write and its version bump are one statement group in one transaction.
 */
export class SqliteKeyTable implements KeyTable {
  readonly #db: DatabaseSync;
  readonly #q: Record<'version' | 'all' | 'get' | 'create' | 'replace' | 'delete' | 'bump', StatementSync>;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.#db.exec(schema);
    this.#q = {
      version: this.#db.prepare('SELECT n FROM runtime_keys_version WHERE one = 1'),
      all: this.#db.prepare('SELECT data FROM runtime_keys'),
      get: this.#db.prepare('SELECT data FROM runtime_keys WHERE id = ?'),
      create: this.#db.prepare('INSERT INTO runtime_keys (id, rev, data) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING'),
      replace: this.#db.prepare('UPDATE runtime_keys SET rev = ?, data = ? WHERE id = ? AND rev = ?'),
      delete: this.#db.prepare('DELETE FROM runtime_keys WHERE id = ?'),
      bump: this.#db.prepare('UPDATE runtime_keys_version SET n = n + 1 WHERE one = 1'),
    };
  }

  /** Runs `write` and bumps the version in one transaction when it changed a row. */
  #write(write: () => number): number {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const changes = write();
      if (changes > 0) this.#q.bump.run();
      this.#db.exec('COMMIT');
      return changes;
    } catch (e) {
      this.#db.exec('ROLLBACK');
      throw e;
    }
  }

  async version(): Promise<string> {
    return String((this.#q.version.get() as { n: number } | undefined)?.n ?? 0);
  }
  async all(): Promise<StoredKey[]> {
    return (this.#q.all.all() as { data: string }[]).map((r) => JSON.parse(r.data) as StoredKey);
  }
  async get(id: string): Promise<StoredKey | undefined> {
    const r = this.#q.get.get(id) as { data: string } | undefined;
    return r ? (JSON.parse(r.data) as StoredKey) : undefined;
  }
  async create(key: StoredKey): Promise<boolean> {
    return this.#write(() => Number(this.#q.create.run(key.id, key.rev, JSON.stringify(key)).changes)) > 0;
  }
  async replace(key: StoredKey, expectRev: number): Promise<ReplaceResult> {
    const changed = this.#write(() =>
      Number(this.#q.replace.run(key.rev, JSON.stringify(key), key.id, expectRev).changes),
    );
    if (changed > 0) return 'ok';
    return this.#q.get.get(key.id) ? 'conflict' : 'missing';
  }
  async delete(id: string): Promise<boolean> {
    return this.#write(() => Number(this.#q.delete.run(id).changes)) > 0;
  }
  async close(): Promise<void> {
    this.#db.close();
  }
}
