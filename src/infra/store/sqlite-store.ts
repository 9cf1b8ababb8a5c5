import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  countedBytes,
  StoreQuotaError,
  type ClaimOptions,
  type Claimed,
  type CountedDoc,
  type Doc,
  type Store,
} from './store.ts';

/**
 * Schema versions, applied in order at open inside one transaction each and recorded in
 * `PRAGMA user_version`; a new version appends an entry, never edits an old one.
 */
const migrations: string[] = [
  `CREATE TABLE docs (
     ns          TEXT    NOT NULL,
     id          TEXT    NOT NULL,
     workspace   TEXT    NOT NULL,
     data        TEXT    NOT NULL,
     due_at      INTEGER,
     lease_token TEXT,
     lease_until INTEGER,
     expires_at  INTEGER,
     updated_at  INTEGER NOT NULL,
     PRIMARY KEY (ns, id)
   );
   CREATE INDEX docs_due ON docs (ns, due_at) WHERE due_at IS NOT NULL;
   CREATE INDEX docs_expires ON docs (expires_at) WHERE expires_at IS NOT NULL;`,
  // Counted bytes per workspace (Store.putCounted). Triggers keep the counter row in the same
  // transaction as every statement that inserts, rewrites or removes a counted row (a delete, an
  // overwrite, the expiry purge), so no code path can forget it.
  `ALTER TABLE docs ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE workspace_usage (workspace TEXT PRIMARY KEY, bytes INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TRIGGER docs_counted_insert AFTER INSERT ON docs WHEN new.counted > 0 BEGIN
     INSERT INTO workspace_usage (workspace, bytes) VALUES (new.workspace, new.counted)
       ON CONFLICT (workspace) DO UPDATE SET bytes = bytes + excluded.bytes;
   END;
   CREATE TRIGGER docs_counted_delete AFTER DELETE ON docs WHEN old.counted > 0 BEGIN
     UPDATE workspace_usage SET bytes = bytes - old.counted WHERE workspace = old.workspace;
   END;
   CREATE TRIGGER docs_counted_update AFTER UPDATE OF counted, workspace ON docs WHEN old.counted > 0 OR new.counted > 0 BEGIN
     UPDATE workspace_usage SET bytes = bytes - old.counted WHERE workspace = old.workspace;
     INSERT INTO workspace_usage (workspace, bytes) VALUES (new.workspace, new.counted)
       ON CONFLICT (workspace) DO UPDATE SET bytes = bytes + excluded.bytes;
   END;
   CREATE INDEX docs_counted_expires ON docs (workspace, expires_at) WHERE counted > 0 AND expires_at IS NOT NULL;`,
];

type DocRow = { id: string; workspace: string; data: string; due_at: number | null; expires_at: number | null };

/**
 * The `sqlite` driver (the default): Node's built-in node:sqlite, one file, WAL journal so reads
 * never wait for the writer. `synchronous=NORMAL` in WAL mode loses nothing when the process is
 * killed (kill -9); only an OS crash or power cut may drop the last transactions.
 *
 * One gateway process serves one database file. That is why leases found at open are released:
 * they belonged to this process before it was restarted (or killed), and waiting for them to
 * expire would only delay polling and callbacks. Several instances share a Redis store instead.
 */
export class SqliteStore implements Store {
  readonly driver = 'sqlite';
  readonly #db: DatabaseSync;
  readonly #q: Record<
    | 'get'
    | 'create'
    | 'upsert'
    | 'putLeased'
    | 'delete'
    | 'dropExpired'
    | 'claim'
    | 'purge'
    | 'usage'
    | 'countedOf'
    | 'putCounted'
    | 'dropExpiredCounted',
    StatementSync
  >;
  #lastPurge = 0;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.#migrate();
    this.#db.exec('UPDATE docs SET lease_token = NULL, lease_until = NULL WHERE lease_token IS NOT NULL');
    const cols = 'id, workspace, data, due_at, expires_at';
    this.#q = {
      get: this.#db.prepare(
        `SELECT ${cols} FROM docs WHERE ns = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ),
      create: this.#db.prepare(
        `INSERT INTO docs (ns, id, workspace, data, due_at, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ns, id) DO NOTHING`,
      ),
      upsert: this.#db.prepare(
        `INSERT INTO docs (ns, id, workspace, data, due_at, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (ns, id) DO UPDATE SET workspace = excluded.workspace, data = excluded.data, due_at = excluded.due_at,
           expires_at = excluded.expires_at, updated_at = excluded.updated_at, lease_token = NULL, lease_until = NULL, counted = 0`,
      ),
      putLeased: this.#db.prepare(
        `UPDATE docs SET workspace = ?, data = ?, due_at = ?, expires_at = ?, updated_at = ?, lease_token = NULL, lease_until = NULL, counted = 0
         WHERE ns = ? AND id = ? AND lease_token = ?`,
      ),
      delete: this.#db.prepare('DELETE FROM docs WHERE ns = ? AND id = ?'),
      dropExpired: this.#db.prepare(
        'DELETE FROM docs WHERE ns = ? AND id = ? AND expires_at IS NOT NULL AND expires_at <= ?',
      ),
      claim: this.#db.prepare(
        `UPDATE docs SET lease_token = ?, lease_until = ?
         WHERE rowid IN (
           SELECT rowid FROM docs
           WHERE ns = ? AND due_at IS NOT NULL AND due_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
             AND (expires_at IS NULL OR expires_at > ?)
           ORDER BY due_at LIMIT ?)
         RETURNING ${cols}`,
      ),
      purge: this.#db.prepare('DELETE FROM docs WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      usage: this.#db.prepare('SELECT bytes FROM workspace_usage WHERE workspace = ?'),
      countedOf: this.#db.prepare('SELECT counted FROM docs WHERE ns = ? AND id = ?'),
      putCounted: this.#db.prepare(
        `INSERT INTO docs (ns, id, workspace, data, due_at, expires_at, updated_at, counted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (ns, id) DO UPDATE SET workspace = excluded.workspace, data = excluded.data, due_at = excluded.due_at,
           expires_at = excluded.expires_at, updated_at = excluded.updated_at, lease_token = NULL, lease_until = NULL, counted = excluded.counted`,
      ),
      dropExpiredCounted: this.#db.prepare(
        'DELETE FROM docs WHERE workspace = ? AND counted > 0 AND expires_at IS NOT NULL AND expires_at <= ?',
      ),
    };
  }

  #migrate(): void {
    const row = this.#db.prepare('PRAGMA user_version').get() as { user_version: number };
    for (let v = row.user_version; v < migrations.length; v++) {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        this.#db.exec(migrations[v]);
        this.#db.exec(`PRAGMA user_version = ${v + 1}`);
        this.#db.exec('COMMIT');
      } catch (e) {
        this.#db.exec('ROLLBACK');
        throw e;
      }
    }
  }

  static #doc<T>(r: DocRow): Doc<T> {
    return {
      id: r.id,
      workspace: r.workspace,
      data: JSON.parse(r.data) as T,
      dueAt: r.due_at,
      expiresAt: r.expires_at,
    };
  }

  async get<T>(ns: string, id: string, workspace?: string): Promise<Doc<T> | undefined> {
    const r = this.#q.get.get(ns, id, Date.now()) as DocRow | undefined;
    if (!r || (workspace !== undefined && r.workspace !== workspace)) return undefined;
    return SqliteStore.#doc<T>(r);
  }

  async create<T>(ns: string, doc: Doc<T>): Promise<boolean> {
    const now = Date.now();
    this.#q.dropExpired.run(ns, doc.id, now);
    const r = this.#q.create.run(
      ns,
      doc.id,
      doc.workspace,
      JSON.stringify(doc.data),
      doc.dueAt,
      doc.expiresAt ?? null,
      now,
    );
    return r.changes === 1;
  }

  async put<T>(ns: string, doc: Doc<T>, opts: { token?: string } = {}): Promise<boolean> {
    const now = Date.now();
    const json = JSON.stringify(doc.data);
    if (opts.token === undefined) {
      this.#q.upsert.run(ns, doc.id, doc.workspace, json, doc.dueAt, doc.expiresAt ?? null, now);
      return true;
    }
    const r = this.#q.putLeased.run(doc.workspace, json, doc.dueAt, doc.expiresAt ?? null, now, ns, doc.id, opts.token);
    return r.changes === 1;
  }

  async delete(ns: string, id: string): Promise<void> {
    this.#q.delete.run(ns, id);
  }

  async putCounted(workspace: string, docs: CountedDoc[], limit: number): Promise<void> {
    const jsons = docs.map((d) => JSON.stringify(d.doc.data));
    const sizes = jsons.map(countedBytes);
    const adding = sizes.reduce((a, b) => a + b, 0);
    const now = Date.now();
    // One transaction: the check, the rows and (by trigger) the counter move together.
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const replaced = (): number =>
        docs.reduce(
          (n, d) => n + ((this.#q.countedOf.get(d.ns, d.doc.id) as { counted: number } | undefined)?.counted ?? 0),
          0,
        );
      let used = this.#used(workspace);
      if (used - replaced() + adding > limit) {
        this.#q.dropExpiredCounted.run(workspace, now);
        used = this.#used(workspace);
        if (used - replaced() + adding > limit) {
          this.#db.exec('COMMIT');
          throw new StoreQuotaError(workspace, used, adding, limit);
        }
      }
      docs.forEach((d, i) =>
        this.#q.putCounted.run(
          d.ns,
          d.doc.id,
          workspace,
          jsons[i],
          d.doc.dueAt,
          d.doc.expiresAt ?? null,
          now,
          sizes[i],
        ),
      );
      this.#db.exec('COMMIT');
    } catch (e) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw e;
    }
  }

  #used(workspace: string): number {
    return (this.#q.usage.get(workspace) as { bytes: number } | undefined)?.bytes ?? 0;
  }

  async storedBytes(workspace: string): Promise<number> {
    return this.#used(workspace);
  }

  async claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]> {
    if (opts.now - this.#lastPurge > 60_000) {
      this.#lastPurge = opts.now;
      this.#q.purge.run(opts.now);
    }
    const token = randomUUID();
    const rows = this.#q.claim.all(
      token,
      opts.now + opts.leaseMs,
      ns,
      opts.now,
      opts.now,
      opts.now,
      opts.limit,
    ) as DocRow[];
    return rows.map((r) => ({ ...SqliteStore.#doc<T>(r), token })).sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0));
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
