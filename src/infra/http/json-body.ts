import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';

/**
 * JSON body parsing with the configured size limit (413 past it) and nesting limit (400 past
 * it). Parsers are built once per limit value, not per request.
 */
const parsers = new Map<number, Koa.Middleware>();
/** What the parser reads of a request's state: the limits of the runtime in force (src/services/runtime/request-state.ts). */
type LimitsState = { runtime: { config: Pick<GatewayConfig, 'limits'> } };

export const jsonBody: Koa.Middleware = (ctx, next) => {
  const limits = (ctx.state as LimitsState).runtime.config.limits;
  let parse = parsers.get(limits.max_body_bytes);
  if (!parse) {
    parse = koaBody({ json: true, text: false, urlencoded: false, multipart: false, jsonStrict: true, jsonLimit: limits.max_body_bytes }) as unknown as Koa.Middleware;
    parsers.set(limits.max_body_bytes, parse);
  }
  return parse(ctx, () => {
    assertJsonDepth(ctx.request.body, limits.max_json_depth);
    return next();
  });
};

/**
 * V8's JSON.parse is iterative and takes any nesting, but every recursive walk after it (adapters,
 * schema converters, JSON.stringify) would overflow the stack on a body nested thousands deep, and
 * that 500 would look like a gateway fault. Refusing at parse time bounds the recursion depth of
 * all code that sees client data. Iterative, and it stops descending at the limit, so it costs one
 * pass over the containers of the body at most.
 */
export function assertJsonDepth(value: unknown, maxDepth: number): void {
  if (typeof value !== 'object' || value === null) return;
  const stack: { v: object; d: number }[] = [{ v: value, d: 1 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (d > maxDepth) {
      throw new GatewayError('invalid-request', `body: JSON nested deeper than ${maxDepth} levels (limits.max_json_depth)`, { param: 'body' });
    }
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push({ v: c, d: d + 1 });
  }
}
