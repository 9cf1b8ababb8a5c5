import type Koa from 'koa';
import type { RouteMethods } from '../../../adapters/shared/format-module.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { routeParams } from '../../infra/http/route-params.ts';

/**
 * `{model}:{method}` paths (route kind `chat-methods`): the method follows a colon inside the last
 * path segment, which router patterns cannot split, so one route takes the segment (`:target`)
 * and dispatches on the method to the generate, stream or count handler.
 */
export function methodDispatch(
  methods: RouteMethods,
  handlers: { generate: Koa.Middleware; stream: Koa.Middleware; count?: Koa.Middleware },
): Koa.Middleware {
  const { generate, stream, count } = handlers;
  const names = [methods.generate, methods.stream, ...(methods.count !== undefined ? [methods.count] : [])];
  return async (ctx, next) => {
    const params = routeParams(ctx);
    const segment = String(params.target ?? '');
    const colon = segment.lastIndexOf(':');
    const method = colon < 0 ? '' : segment.slice(colon + 1);
    // The router decoded the segment once already (a malformed escape is left as it came, and then
    // names no model: 404). Decoding again would serve `ech%256f` as `echo`.
    params.model = colon < 0 ? segment : segment.slice(0, colon);
    if (method === methods.generate) return generate(ctx, next);
    if (method === methods.stream) {
      const q = methods.streamQuery;
      if (q && ctx.query[q.param] !== q.value)
        throw new GatewayError(
          'invalid-request',
          `${method} is served as server-sent events only: add ${q.param}=${q.value}`,
          { param: q.param },
        );
      return stream(ctx, next);
    }
    if (count && method === methods.count) return count(ctx, next);
    throw new GatewayError(
      'not-found',
      `method '${method || segment}' is not supported; use ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`,
    );
  };
}
