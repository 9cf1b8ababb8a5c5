// The request log (#25, docs/usage-and-tracing.md "Request log"): the ledger's records read one by
// one, newest first, with filters and cursor pagination, and the content of the requests of the
// workspaces that capture it. Each ledger store has its own query module (memory-request-log.ts,
// sqlite-request-log.ts, redis-request-log.ts) implementing `RequestLogStore`.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../ir/gateway-error.ts';
import { nanoPerUsd } from './prices.ts';
import type { UsageRecord } from './usage-record.ts';

/** Narrowing filters; all given ones must match. Times are epoch ms, `since` inclusive, `until` exclusive. */
export type RequestFilter = {
  key?: string;
  workspace?: string;
  model?: string;
  provider?: string;
  outcome?: string;
  /** An inclusive range of HTTP statuses (`404` → 404..404, `4xx` → 400..499). */
  status?: { min: number; max: number };
  since?: number;
  until?: number;
};

/**
 * Where a page ended: the last record's time and a tie-breaker unique in its store (sqlite's rowid,
 * the memory store's sequence number, the Redis member's prefix). The next page starts strictly after it.
 */
export type LogPosition = { ts: number; tie: number | string };

export type RequestQuery = RequestFilter & { limit: number; after?: LogPosition };

/** One record of a page, with whether its content is stored now (captured and not deleted). */
export type LoggedRecord = { record: UsageRecord; hasContent: boolean };

export type LogPage = { records: LoggedRecord[]; next?: LogPosition };

/** A request's body and answer as stored: bounded by the workspace's max_bytes, secrets removed. */
export type RequestContent = {
  request: string | null;
  response: string | null;
  request_truncated: boolean;
  response_truncated: boolean;
  max_bytes: number;
};

/** Content with what ties it to its record (a client may send the same x-request-id twice). */
export type StoredContent = RequestContent & { request_id: string; ts: number; day: string };

export interface RequestLogStore {
  list(q: RequestQuery): Promise<LogPage>;
  /** The newest record with this request id. */
  get(requestId: string): Promise<LoggedRecord | undefined>;
  putContent(c: StoredContent): Promise<void>;
  /** The content of the record with this id and time, if stored. */
  content(requestId: string, ts: number): Promise<RequestContent | undefined>;
  deleteContent(requestId: string): Promise<void>;
}

/** Records a store reads per step when it filters in the process (Redis); a page ends after `maxScanned`. */
export const scanStep = 256;
export const maxScanned = 20_000;

const maxWarnings = 20;
const maxWarningChars = 300;
const maxRouteChars = 200;

/** Printable ASCII only: a stored string becomes a JSON value, a CSV cell and console text. */
const printable = (s: string, max: number): string => s.slice(0, max).replace(/[^\x20-\x7e]/g, '?');

export const boundRoute = (route: string): string => printable(route, maxRouteChars);

/** At most 20 warnings of 300 characters; a longer list ends with how many were left out. */
export function boundWarnings(warnings: readonly string[] | undefined): string[] | undefined {
  if (warnings === undefined || warnings.length === 0) return undefined;
  const out = warnings.slice(0, maxWarnings).map((w) => printable(w, maxWarningChars));
  if (warnings.length > maxWarnings) out[maxWarnings - 1] = `(${warnings.length - maxWarnings + 1} more)`;
  return out;
}

export function matches(r: UsageRecord, f: RequestFilter): boolean {
  return (
    (f.key === undefined || r.key === f.key) &&
    (f.workspace === undefined || r.workspace === f.workspace) &&
    (f.model === undefined || r.model === f.model) &&
    (f.provider === undefined || r.provider === f.provider) &&
    (f.outcome === undefined || r.outcome === f.outcome) &&
    (f.status === undefined || (r.status >= f.status.min && r.status <= f.status.max)) &&
    (f.since === undefined || r.ts >= f.since) &&
    (f.until === undefined || r.ts < f.until)
  );
}

/** True when (ts, tie) comes after `p` in newest-first order. */
export const isAfter = (ts: number, tie: number | string, p: LogPosition | undefined): boolean =>
  p === undefined || ts < p.ts || (ts === p.ts && tie < p.tie);

/** A row of GET /admin/requests (ADMIN-API.md `RequestRow`). */
export type RequestRow = {
  request_id: string;
  time: string;
  key: string;
  workspace: string;
  family: string;
  route: string | null;
  model: string;
  provider: string;
  upstream_model: string;
  format_in: string;
  format_out: string;
  mode: string;
  status: number;
  outcome: string;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  usage_source: string;
  cost_usd: number;
  latency_ms: number | null;
  ttfb_ms: number | null;
  warnings: string[];
  has_content: boolean;
};

export const rowColumns = [
  'request_id',
  'time',
  'key',
  'workspace',
  'family',
  'route',
  'model',
  'provider',
  'upstream_model',
  'format_in',
  'format_out',
  'mode',
  'status',
  'outcome',
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'usage_source',
  'cost_usd',
  'latency_ms',
  'ttfb_ms',
  'warnings',
  'has_content',
] as const satisfies readonly (keyof RequestRow)[];

export function rowOf({ record: r, hasContent }: LoggedRecord): RequestRow {
  return {
    request_id: r.request_id,
    time: new Date(r.ts).toISOString(),
    key: r.key,
    workspace: r.workspace,
    family: r.family,
    route: r.route ?? null,
    model: r.model,
    provider: r.provider,
    upstream_model: r.upstream_model,
    format_in: r.format_in,
    format_out: r.format_out,
    mode: r.mode,
    status: r.status,
    outcome: r.outcome,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    reasoning_tokens: r.reasoning_tokens,
    cache_read_tokens: r.cache_read_tokens,
    cache_write_tokens: r.cache_write_tokens,
    usage_source: r.usage_source,
    cost_usd: r.cost_nano / nanoPerUsd,
    latency_ms: r.latency_ms ?? null,
    ttfb_ms: r.ttfb_ms ?? null,
    warnings: r.warnings ?? [],
    has_content: hasContent,
  };
}

/**
 * A CSV cell: quoted when it holds a quote, comma or line break, and a text starting with a
 * formula character (= + - @, tab, CR) prefixed with an apostrophe, so a spreadsheet shows it
 * instead of running it (model names, routes and warnings carry client text).
 */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = Array.isArray(v) ? v.join('; ') : String(v);
  if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function rowsCsv(rows: readonly RequestRow[]): string {
  const lines = [rowColumns.join(',')];
  for (const row of rows) lines.push(rowColumns.map((c) => csvCell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

// Cursors: the position and a digest of the filters, signed with an HMAC keyed by the admin token,
// so a cursor cannot be forged or edited (400), nor reused with other filters (400).

/** Longer cursors are refused before any decoding. */
export const maxCursorChars = 512;

/**
 * The filters as the client wrote them (not as parsed: `since=7d` names the same query on every
 * page, while its time moves), digested.
 */
export const filterDigest = (raw: readonly (string | undefined)[]): string =>
  createHash('sha256').update(JSON.stringify(raw)).digest('base64url').slice(0, 16);

const sign = (secret: string, payload: string): Buffer =>
  createHmac('sha256', `polygate request log cursor\n${secret}`).update(payload).digest();

export function encodeCursor(p: LogPosition, filters: string, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ t: p.ts, i: p.tie, f: filters })).toString('base64url');
  return `${payload}.${sign(secret, payload).toString('base64url')}`;
}

export function decodeCursor(cursor: string, filters: string, secret: string): LogPosition {
  const bad = (why: string) => invalid('cursor', `cursor: ${why}; use the next_cursor of an earlier page as it came`);
  if (cursor.length > maxCursorChars) throw bad(`longer than ${maxCursorChars} characters`);
  const [payload, mac, extra] = cursor.split('.');
  if (extra !== undefined || !payload || !mac || !/^[\w-]+$/.test(payload) || !/^[\w-]+$/.test(mac))
    throw bad('not a cursor of this API');
  const want = sign(secret, payload);
  const got = Buffer.from(mac, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw bad('altered or from another gateway');
  let v: { t?: unknown; i?: unknown; f?: unknown };
  try {
    v = JSON.parse(Buffer.from(payload, 'base64url').toString()) as typeof v;
  } catch {
    throw bad('not a cursor');
  }
  if (v.f !== filters) throw bad('made for other filters');
  if (typeof v.t !== 'number' || (typeof v.i !== 'number' && typeof v.i !== 'string')) throw bad('not a cursor');
  return { ts: v.t, tie: v.i };
}
