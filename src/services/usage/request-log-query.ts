// The query string of GET /admin/requests (docs/usage-and-tracing.md "Request log"): every value
// checked and bounded before it reaches a store; an unknown parameter or a bad value is a 400
// naming it (a typo must not silently widen what an operator reads or exports).
import { invalid } from '../../ir/gateway-error.ts';
import { decodeCursor, filterDigest, type RequestFilter, type RequestQuery } from './request-log.ts';

export const requestParams = [
  'key',
  'workspace',
  'model',
  'provider',
  'outcome',
  'status',
  'since',
  'until',
  'limit',
  'cursor',
  'format',
] as const;

export const defaultLimit = 50;
export const maxLimit = 500;

/** Ids and names as the contract bounds them: at most 128 characters of [A-Za-z0-9._-] (model names may hold `/` and `:`). */
const idPattern = /^[A-Za-z0-9._-]{1,128}$/;
const namePattern = /^[A-Za-z0-9._:/@+-]{1,256}$/;
/** Workspaces and key ids of the YAML file are any text: printable ASCII, bounded. */
const textPattern = /^[\x20-\x7e]{1,128}$/;

const unitMs: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Client text quoted in an error message: bounded, no control characters. */
const shown = (v: string, max = 64): string => v.slice(0, max).replace(/[^\x20-\x7e]/g, '?');

/** `2026-11-27T10:00:00Z` (any ISO-8601 time with a zone), `2026-11-27` (UTC midnight), or `30m` / `24h` / `7d` ago. */
export function parseTime(v: string, param: string, now: number): number {
  const rel = /^(\d{1,5})([mhd])$/.exec(v);
  if (rel) return now - Number(rel[1]) * unitMs[rel[2]];
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    if (!Number.isNaN(t)) return t;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(v)) {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  throw invalid(
    param,
    `${param}: '${shown(v)}' is not an ISO-8601 time with a zone (2026-11-27T10:00:00Z), a UTC date (YYYY-MM-DD) or a time ago (30m, 24h, 7d)`,
  );
}

function parseStatus(v: string): { min: number; max: number } {
  if (/^[1-5]\d\d$/.test(v)) return { min: Number(v), max: Number(v) };
  if (/^[1-5]xx$/.test(v)) return { min: Number(v[0]) * 100, max: Number(v[0]) * 100 + 99 };
  throw invalid('status', `status: '${shown(v)}' is neither an HTTP status (e.g. 429) nor a class (4xx)`);
}

/** The format asked for: `format=` first, else the Accept header (`text/csv`). */
export type LogFormat = 'json' | 'csv';

/**
 * Reads the query; `secret` checks the cursor's signature (the admin token). Repeated parameters
 * are refused: with two `key=` values it is not clear which one narrows the export.
 */
export function parseRequestQuery(
  q: Record<string, string | string[] | undefined>,
  now: number,
  secret: string,
): RequestQuery & { format?: LogFormat; filters: string } {
  for (const name of Object.keys(q)) {
    const n = shown(name);
    if (!(requestParams as readonly string[]).includes(name))
      throw invalid(n, `${n}: not a parameter of /admin/requests (${requestParams.join(', ')})`);
    if (Array.isArray(q[name])) throw invalid(n, `${n}: given more than once`);
  }
  const one = (name: string): string | undefined => {
    const v = q[name] as string | undefined;
    return v === undefined || v === '' ? undefined : v;
  };
  const named = (name: keyof RequestFilter, pattern: RegExp): string | undefined => {
    const v = one(name);
    if (v !== undefined && !pattern.test(v))
      throw invalid(
        name,
        `${name}: '${shown(v)}' is not a valid ${name} (${pattern === idPattern ? 'at most 128 characters of A-Z a-z 0-9 . _ -' : 'bounded printable ASCII'})`,
      );
    return v;
  };
  const f: RequestFilter = {
    key: named('key', textPattern),
    workspace: named('workspace', textPattern),
    model: named('model', namePattern),
    provider: named('provider', idPattern),
    outcome: named('outcome', idPattern),
  };
  const status = one('status');
  if (status !== undefined) f.status = parseStatus(status);
  const since = one('since');
  const until = one('until');
  if (since !== undefined) f.since = parseTime(since, 'since', now);
  if (until !== undefined) f.until = parseTime(until, 'until', now);
  if (f.since !== undefined && f.until !== undefined && f.since >= f.until)
    throw invalid('since', 'since: must be before until');
  const limitText = one('limit');
  let limit = defaultLimit;
  if (limitText !== undefined) {
    if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > maxLimit)
      throw invalid('limit', `limit: '${shown(limitText, 16)}' is not a whole number from 1 to ${maxLimit}`);
    limit = Number(limitText);
  }
  const format = one('format');
  if (format !== undefined && format !== 'json' && format !== 'csv')
    throw invalid('format', `format: '${shown(format, 16)}' is not one of json, csv`);
  const filters = filterDigest(
    ['key', 'workspace', 'model', 'provider', 'outcome', 'status', 'since', 'until'].map(one),
  );
  const cursor = one('cursor');
  const after = cursor === undefined ? undefined : decodeCursor(cursor, filters, secret);
  return { ...f, limit, after, format, filters };
}

/** A request id in a path: what the gateway stores (printable ASCII, at most 128 characters). */
export function parseRequestId(v: string): string {
  if (!/^[\x21-\x7e]{1,128}$/.test(v))
    throw invalid('request_id', 'request_id: at most 128 printable ASCII characters (the x-request-id of the request)');
  return v;
}
