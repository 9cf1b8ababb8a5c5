// The request log of the `sqlite` ledger store: the request log's columns of `usage_records`
// (added to a file of an older polygate on start), its indexes, the `usage_content` table, and the
// queries of GET /admin/requests.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { UsageRecord } from './usage-record.ts';
import type {
  LoggedRecord,
  LogPage,
  RequestContent,
  RequestLogStore,
  RequestQuery,
  StoredContent,
} from './request-log.ts';

/** The request log's columns of usage_records, appended to the store's own; NULL in rows written before them. */
export const requestLogColumns = ['route', 'latency_ms', 'ttfb_ms', 'warnings', 'content_captured'] as const;

/** A record's values for `requestLogColumns`, written into `into` from `at`. */
export function requestLogValues(r: UsageRecord, into: (string | number | null)[], at: number): void {
  into[at] = r.route ?? null;
  into[at + 1] = r.latency_ms ?? null;
  into[at + 2] = r.ttfb_ms ?? null;
  into[at + 3] = r.warnings === undefined ? null : JSON.stringify(r.warnings);
  into[at + 4] = r.content_captured === undefined ? null : r.content_captured ? 1 : 0;
}

// One index, on the time: pages are newest first by (ts, rowid). Every index is paid by every
// record's write, on the event loop: one on request_id (random UUIDs) cost ~16 µs a record and
// (key, ts) + (workspace, ts) ~14 µs more, against ~1 µs for ts, where the whole append cost ~15
// (docs/usage-and-tracing.md, "Request log"). So filters walk the time index within a scan budget per page (as on
// Redis), and a lookup by id walks the table back from its newest row in chunks, yielding between
// them, unless the request's content (indexed by id) gives its time.
const schema = `
CREATE INDEX IF NOT EXISTS usage_records_ts ON usage_records (ts);
CREATE TABLE IF NOT EXISTS usage_content (
  request_id TEXT PRIMARY KEY, ts INTEGER NOT NULL, day TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_content_day ON usage_content (day);`;

/** Adds what a file of an older polygate lacks; run before the store prepares its INSERT. */
export function addRequestLogSchema(db: DatabaseSync): void {
  const cols = db.prepare('PRAGMA table_info(usage_records)').all() as { name: string }[];
  const types: Record<(typeof requestLogColumns)[number], string> = {
    route: 'TEXT',
    latency_ms: 'REAL',
    ttfb_ms: 'REAL',
    warnings: 'TEXT',
    content_captured: 'INTEGER',
  };
  for (const name of requestLogColumns)
    if (!cols.some((c) => c.name === name)) db.exec(`ALTER TABLE usage_records ADD COLUMN ${name} ${types[name]}`);
  db.exec(schema);
}

type Row = Record<string, string | number | null> & { rid: number; has_content: number };

/** A row of usage_records (or a journal line's values, sqlite-ledger-store.ts) as its record. */
export function recordOf(row: Record<string, string | number | null>): UsageRecord {
  const {
    rid: _rid,
    has_content: _hc,
    audio_ms,
    priced,
    route,
    latency_ms,
    ttfb_ms,
    warnings,
    content_captured,
    ...rest
  } = row;
  const r = { ...rest, audio_seconds: Number(audio_ms) / 1000, priced: priced === 1 } as unknown as UsageRecord;
  if (route !== null) r.route = String(route);
  if (latency_ms !== null) r.latency_ms = Number(latency_ms);
  if (ttfb_ms !== null) r.ttfb_ms = Number(ttfb_ms);
  if (warnings !== null) r.warnings = JSON.parse(String(warnings)) as string[];
  if (content_captured !== null) r.content_captured = content_captured === 1;
  return r;
}

const hasContent =
  'EXISTS (SELECT 1 FROM usage_content c WHERE c.request_id = r.request_id AND c.ts = r.ts) AS has_content';

/**
 * Rows a filtered page walks, and a lookup by id reads between two turns of the event loop: node:sqlite
 * is synchronous, and 5,000 rows took ~10 ms on a loaded two-core machine (20,000 took 35–55 ms).
 */
export const sqliteScanned = 5_000;
const idChunk = 4_096;

const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class SqliteRequestLog implements RequestLogStore {
  readonly #db: DatabaseSync;
  readonly #q;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#q = {
      maxRowid: db.prepare('SELECT max(rowid) AS m FROM usage_records'),
      byIdIn: db.prepare(
        `SELECT r.rowid AS rid, r.*, ${hasContent} FROM usage_records r
         WHERE r.rowid > ? AND r.rowid <= ? AND r.request_id = ? ORDER BY r.rowid DESC LIMIT 1`,
      ),
      byIdAt: db.prepare(
        `SELECT r.rowid AS rid, r.*, ${hasContent} FROM usage_records r
         WHERE r.ts = ? AND r.request_id = ? ORDER BY r.rowid DESC LIMIT 1`,
      ),
      contentTs: db.prepare('SELECT ts FROM usage_content WHERE request_id = ?'),
      put: db.prepare('INSERT OR REPLACE INTO usage_content (request_id, ts, day, body) VALUES (?, ?, ?, ?)'),
      content: db.prepare('SELECT body FROM usage_content WHERE request_id = ? AND ts = ?'),
      del: db.prepare('DELETE FROM usage_content WHERE request_id = ?'),
      prune: db.prepare('DELETE FROM usage_content WHERE day < ?'),
    };
  }

  async list(q: RequestQuery): Promise<LogPage> {
    // The time range and the cursor: what the time index walks.
    const range: string[] = [];
    const rangeArgs: SQLInputValue[] = [];
    if (q.since !== undefined) {
      range.push('r.ts >= ?');
      rangeArgs.push(q.since);
    }
    if (q.until !== undefined) {
      range.push('r.ts < ?');
      rangeArgs.push(q.until);
    }
    if (q.after) {
      range.push('(r.ts < ? OR (r.ts = ? AND r.rowid < ?))');
      rangeArgs.push(q.after.ts, q.after.ts, Number(q.after.tie));
    }
    // The other filters: checked on the rows the walk reads.
    const where: string[] = [];
    const args: SQLInputValue[] = [];
    const eq = (col: string, v: string | undefined): void => {
      if (v === undefined) return;
      where.push(`s.${col} = ?`);
      args.push(v);
    };
    eq('key', q.key);
    eq('workspace', q.workspace);
    eq('model', q.model);
    eq('provider', q.provider);
    eq('outcome', q.outcome);
    if (q.status) {
      where.push('s.status BETWEEN ? AND ?');
      args.push(q.status.min, q.status.max);
    }
    const walk = `FROM usage_records r${range.length ? ` WHERE ${range.join(' AND ')}` : ''} ORDER BY r.ts DESC, r.rowid DESC`;
    const sql =
      where.length === 0
        ? `SELECT r.rowid AS rid, r.*, ${hasContent} ${walk} LIMIT ?`
        : `SELECT s.*, EXISTS (SELECT 1 FROM usage_content c WHERE c.request_id = s.request_id AND c.ts = s.ts) AS has_content
           FROM (SELECT r.rowid AS rid, r.* ${walk} LIMIT ${sqliteScanned}) s
           WHERE ${where.join(' AND ')} ORDER BY s.ts DESC, s.rid DESC LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...rangeArgs, ...args, q.limit + 1) as Row[];
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    let next = rows.length > q.limit && last ? { ts: Number(last.ts), tie: last.rid } : undefined;
    if (next === undefined && where.length > 0) {
      // Fewer matches than a page: if the walk stopped at its budget, the next page goes on after it.
      const end = this.#db
        .prepare(`SELECT r.ts AS ts, r.rowid AS rid ${walk} LIMIT 1 OFFSET ${sqliteScanned - 1}`)
        .get(...rangeArgs) as { ts: number; rid: number } | undefined;
      if (end) next = { ts: end.ts, tie: end.rid };
    }
    return {
      records: page.map((row) => ({ record: recordOf(row), hasContent: row.has_content === 1 })),
      next,
    };
  }

  async get(requestId: string): Promise<LoggedRecord | undefined> {
    const captured = this.#q.contentTs.get(requestId) as { ts: number } | undefined;
    if (captured) {
      const row = this.#q.byIdAt.get(captured.ts, requestId) as Row | undefined;
      if (row) return { record: recordOf(row), hasContent: row.has_content === 1 };
    }
    const max = (this.#q.maxRowid.get() as { m: number | null }).m ?? 0;
    for (let hi = max; hi > 0; hi -= idChunk) {
      const row = this.#q.byIdIn.get(hi - idChunk, hi, requestId) as Row | undefined;
      if (row) return { record: recordOf(row), hasContent: row.has_content === 1 };
      await immediate();
    }
    return undefined;
  }

  async putContent(c: StoredContent): Promise<void> {
    this.#q.put.run(c.request_id, c.ts, c.day, JSON.stringify(c));
  }

  async content(requestId: string, ts: number): Promise<RequestContent | undefined> {
    const row = this.#q.content.get(requestId, ts) as { body: string } | undefined;
    return row && (JSON.parse(row.body) as RequestContent);
  }

  async deleteContent(requestId: string): Promise<void> {
    this.#q.del.run(requestId);
  }

  prune(day: string): void {
    this.#q.prune.run(day);
  }
}
