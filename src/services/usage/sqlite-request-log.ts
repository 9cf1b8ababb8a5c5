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

/** A record's values for `requestLogColumns`. */
export function requestLogValues(r: UsageRecord, into: (string | number | null)[]): void {
  into.push(
    r.route ?? null,
    r.latency_ms ?? null,
    r.ttfb_ms ?? null,
    r.warnings === undefined ? null : JSON.stringify(r.warnings),
    r.content_captured === undefined ? null : r.content_captured ? 1 : 0,
  );
}

// Newest first by (ts, rowid); with a key or a workspace, its own index. Model, provider, outcome
// and status filters walk the time index (an operator narrows by key or workspace first).
const schema = `
CREATE INDEX IF NOT EXISTS usage_records_ts ON usage_records (ts);
CREATE INDEX IF NOT EXISTS usage_records_request ON usage_records (request_id);
CREATE INDEX IF NOT EXISTS usage_records_key_ts ON usage_records (key, ts);
CREATE INDEX IF NOT EXISTS usage_records_workspace_ts ON usage_records (workspace, ts);
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

function recordOf(row: Row): UsageRecord {
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

const select = `SELECT r.rowid AS rid, r.*,
  EXISTS (SELECT 1 FROM usage_content c WHERE c.request_id = r.request_id AND c.ts = r.ts) AS has_content
  FROM usage_records r`;

export class SqliteRequestLog implements RequestLogStore {
  readonly #db: DatabaseSync;
  readonly #q;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#q = {
      get: db.prepare(`${select} WHERE r.request_id = ? ORDER BY r.ts DESC, r.rowid DESC LIMIT 1`),
      put: db.prepare('INSERT OR REPLACE INTO usage_content (request_id, ts, day, body) VALUES (?, ?, ?, ?)'),
      content: db.prepare('SELECT body FROM usage_content WHERE request_id = ? AND ts = ?'),
      del: db.prepare('DELETE FROM usage_content WHERE request_id = ?'),
      prune: db.prepare('DELETE FROM usage_content WHERE day < ?'),
    };
  }

  async list(q: RequestQuery): Promise<LogPage> {
    const where: string[] = [];
    const args: SQLInputValue[] = [];
    const eq = (col: string, v: string | undefined): void => {
      if (v === undefined) return;
      where.push(`r.${col} = ?`);
      args.push(v);
    };
    eq('key', q.key);
    eq('workspace', q.workspace);
    eq('model', q.model);
    eq('provider', q.provider);
    eq('outcome', q.outcome);
    if (q.status) {
      where.push('r.status BETWEEN ? AND ?');
      args.push(q.status.min, q.status.max);
    }
    if (q.since !== undefined) {
      where.push('r.ts >= ?');
      args.push(q.since);
    }
    if (q.until !== undefined) {
      where.push('r.ts < ?');
      args.push(q.until);
    }
    if (q.after) {
      where.push('(r.ts < ? OR (r.ts = ? AND r.rowid < ?))');
      args.push(q.after.ts, q.after.ts, Number(q.after.tie));
    }
    const sql = `${select}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY r.ts DESC, r.rowid DESC LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...args, q.limit + 1) as Row[];
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      records: page.map((row) => ({ record: recordOf(row), hasContent: row.has_content === 1 })),
      next: rows.length > q.limit && last ? { ts: Number(last.ts), tie: last.rid } : undefined,
    };
  }

  async get(requestId: string): Promise<LoggedRecord | undefined> {
    const row = this.#q.get.get(requestId) as Row | undefined;
    return row && { record: recordOf(row), hasContent: row.has_content === 1 };
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
