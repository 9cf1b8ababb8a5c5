import type Koa from 'koa';
import { koaBody } from 'koa-body';
import type { RequestState } from '../pipeline/request-state.ts';

/**
 * JSON body parsing with the configured size limit (413 past it). Parsers are built once per
 * limit value, not per request.
 */
const parsers = new Map<number, Koa.Middleware>();

export const jsonBody: Koa.Middleware = (ctx, next) => {
  const limit = (ctx.state as RequestState).runtime.config.limits.max_body_bytes;
  let parse = parsers.get(limit);
  if (!parse) {
    parse = koaBody({ json: true, text: false, urlencoded: false, multipart: false, jsonStrict: true, jsonLimit: limit }) as unknown as Koa.Middleware;
    parsers.set(limit, parse);
  }
  return parse(ctx, next);
};
