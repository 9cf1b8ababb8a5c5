// Which wire format a request path belongs to, read from the format list (src/infra/formats/formats.ts). Used to
// answer every error, including ones raised before a route matched (bad JSON, 413, 401, 404, 405),
// in the format's own shape, and to label every request's metrics and log line.
import type { WireHeaders } from '../../../adapters/shared/chat-adapter.ts';
import type { FormatModule } from '../formats/formats.ts';

/**
 * The router (src/app/app.ts) matches paths case-insensitively and with one optional trailing slash
 * (@koa/router's `sensitive: false, strict: false`). Format detection reads the path through the
 * same rule, so `/V1/MESSAGES` and `/v1/chat/completions/` get the format of the route that
 * serves them. Only the comparison is normalised: the path itself (ids, model names) is not.
 */
export function routeComparable(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/**
 * A prefix ending in `/` claims only what is under it; any other, itself too (and what follows it
 * after a `/`, read in place: no `prefix + '/'` string per rule per request).
 */
const under = (path: string, prefix: string): boolean =>
  path.startsWith(prefix) &&
  (prefix.endsWith('/') || path.length === prefix.length || path.charCodeAt(prefix.length) === 47);

/**
 * The format claiming the path. A rule with a `when` that holds (a shared path such as
 * `/v1/models`, claimed by headers or query) wins over a plain prefix; ties go by list order.
 */
export function formatOfPath(
  rawPath: string,
  headers: WireHeaders = {},
  query: Record<string, unknown> = {},
  list: readonly FormatModule[],
): FormatModule | undefined {
  const path = routeComparable(rawPath);
  let plain: FormatModule | undefined;
  for (const f of list) {
    for (const rule of f.paths) {
      if (!under(path, rule.prefix)) continue;
      if (!rule.when) plain ??= f;
      else if (rule.when(headers, query, path)) return f;
    }
  }
  return plain;
}
