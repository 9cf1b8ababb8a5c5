// The routes the format modules describe as data (adapters/shared/format-module.ts, RouteSpec),
// registered on the router: one way for every format (docs/architecture.md, "The format module").
import type Router from '@koa/router';
import type Koa from 'koa';
import type { RouteMethods, RouteSpec } from '../../adapters/shared/format-module.ts';
import { countTokensHandler } from '../families/discovery/count-tokens.ts';
import { isChatFormat, type ChatFormatModule, type FormatModule } from '../infra/formats/formats.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import { chatHandler } from '../families/chat/chat-handler.ts';
import type { ChatSession } from '../services/sessions/chat-session.ts';
import { authenticate } from '../services/access/authenticate.ts';
import { jsonBody } from '../infra/http/json-body.ts';

/** State a format keeps around its requests (a Responses chain), by format name. */
export type FormatSessions = Readonly<Record<string, (ctx: Koa.Context) => ChatSession>>;

export function registerFormatRoutes(router: Router, list: readonly FormatModule[], sessions: FormatSessions = {}): void {
  for (const format of list) {
    if (format.routes.length === 0) continue;
    if (!isChatFormat(format)) throw new Error(`format '${format.name}' describes chat routes but has no client codec`);
    const session = sessions[format.name];
    for (const route of format.routes) router.post(route.path, authenticate(format), jsonBody, handlerOf(format, route, session));
  }
}

function handlerOf(format: ChatFormatModule, route: RouteSpec, session: FormatSessions[string] | undefined): Koa.Middleware {
  switch (route.kind) {
    case 'chat':
      return chatHandler(format, { session });
    case 'count-tokens':
      return countTokensHandler(format, session);
    case 'chat-methods':
      return methodDispatch(format, route.methods, session);
    default: {
      const never: never = route;
      return never;
    }
  }
}

const paramsOf = (ctx: Koa.Context): Record<string, string> => (ctx as unknown as { params: Record<string, string> }).params;

/**
 * `{model}:{method}` paths: the method follows a colon inside the last path segment, which router
 * patterns cannot split, so one route takes the segment (`:target`) and dispatches on the method.
 */
function methodDispatch(format: ChatFormatModule, methods: RouteMethods, session: FormatSessions[string] | undefined): Koa.Middleware {
  const generate = chatHandler(format, { session });
  const stream = chatHandler(format, { session, streamByRoute: true });
  const count = methods.count !== undefined ? countTokensHandler(format, session) : undefined;
  const names = [methods.generate, methods.stream, ...(methods.count !== undefined ? [methods.count] : [])];
  return async (ctx) => {
    const params = paramsOf(ctx);
    const segment = String(params.target ?? '');
    const colon = segment.lastIndexOf(':');
    const method = colon < 0 ? '' : segment.slice(colon + 1);
    // The router decoded the segment once already (a malformed escape is left as it came, and then
    // names no model: 404). Decoding again would serve `ech%256f` as `echo`.
    params.model = colon < 0 ? segment : segment.slice(0, colon);
    if (method === methods.generate) return generate(ctx);
    if (method === methods.stream) {
      const q = methods.streamQuery;
      if (q && ctx.query[q.param] !== q.value) throw new GatewayError('invalid-request', `${method} is served as server-sent events only: add ${q.param}=${q.value}`, { param: q.param });
      return stream(ctx);
    }
    if (count && method === methods.count) return count(ctx);
    throw new GatewayError('not-found', `method '${method || segment}' is not supported; use ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  };
}
