import type { ServerResponse } from 'node:http';

/**
 * `ctx.set(headers)` for headers of plain string values: each one handed to the response as Koa
 * would (`setHeader`, nothing once the headers are sent), without the entry pairs, the mapped copy
 * and the iterators Koa's `set` builds per call (~1 KB a JSON answer, session 10's heap profile).
 */
export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  if (res.headersSent) return;
  for (const name in headers) res.setHeader(name, headers[name]);
}
