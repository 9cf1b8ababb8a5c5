import type { Context } from 'koa';

/**
 * `ctx.is(types)` for a request whose body is JSON: true when it has a body (a length or a
 * transfer-coding, type-is's rule) and its content type matches one of `types`. The type every SDK
 * sends, exactly `application/json`, is answered without type-is, which parses the header and each
 * type again on every call (twice per chat request: the body parser and the handler); any other
 * header (parameters, case, another type) goes to `ctx.is` as before, so the answer is its own.
 */
export function isJsonRequest(ctx: Context, types: string[]): boolean {
  const h = ctx.req.headers;
  if (h['content-type'] === 'application/json' && types[0] === 'application/json')
    return h['transfer-encoding'] !== undefined || !isNaN(h['content-length'] as unknown as number);
  return Boolean(ctx.is(types));
}
