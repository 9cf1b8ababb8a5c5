// Every client route, as the format modules describe it (adapters/shared/format-module.ts,
// RouteSpec), registered on the router one way: the format's admission (key, budget, limits), the JSON body parser
// where the route takes one, and the handler of the route's kind, which the families provide
// (src/app/route-handlers.ts). docs/architecture.md, "The format module".
import type Koa from 'koa';
import type { RouteKind, RouteOf, RouteSpec } from '../../adapters/shared/format-module.ts';
import type { FormatModule } from '../infra/formats/formats.ts';
import { routeComparable } from '../infra/http/format-of-path.ts';
import { jsonBody } from '../infra/http/json-body.ts';
import { admitRequest } from '../services/access/admit-request.ts';
import type { GatewayMiddleware, GatewayRouter } from '../services/runtime/gateway-context.ts';

/** For each route kind, the factory of its handler for one format's route. */
export type RouteHandlers = { readonly [K in RouteKind]: (format: FormatModule, route: RouteOf<K>) => Koa.Middleware };

type Served = { readonly format: FormatModule; readonly chain: readonly Koa.Middleware[] };

export function registerFormatRoutes(
  router: GatewayRouter,
  list: readonly FormatModule[],
  handlers: RouteHandlers,
): void {
  // Routes by method and path, in the list's order: a path several formats declare is one route.
  const routes = new Map<string, { route: RouteSpec; served: Served[] }>();
  for (const format of list) {
    for (const route of format.routes) {
      const id = `${route.method} ${routeComparable(route.path)}`;
      const entry = routes.get(id) ?? { route, served: [] };
      routes.set(id, entry);
      entry.served.push({ format, chain: chainOf(format, route, handlers) });
    }
  }
  for (const { route, served } of routes.values()) {
    register(router, route, served.length === 1 ? served[0].chain : [byDetectedFormat(served)]);
  }
}

/** Admission (key, budget, limits; unless the route asks no key), the JSON body parser (POST, unless raw), the handler. */
function chainOf(format: FormatModule, route: RouteSpec, handlers: RouteHandlers): Koa.Middleware[] {
  return [
    ...(route.auth === 'none' ? [] : [admitRequest(format)]),
    ...(route.method === 'POST' && route.body !== 'raw' ? [jsonBody] : []),
    handlerOf(format, route, handlers),
  ];
}

/**
 * A method and path several formats declare (`GET /v1/models`): the request is served by the
 * format the request scope detected from the formats' path rules (src/infra/http/format-of-path.ts:
 * `anthropic-version`, a Gemini key…), so its key is read, and its answer and errors written,
 * the way that format's clients expect. A detected format that does not declare the route leaves
 * it to the last declarer in the list (the one whose rule claims the path unconditionally).
 */
function byDetectedFormat(served: readonly Served[]): GatewayMiddleware {
  const byName = new Map(served.map((s) => [s.format.name, s.chain]));
  const last = served[served.length - 1].chain;
  return (ctx, next) => run(byName.get(ctx.state.format?.name ?? '') ?? last, ctx, next);
}

function run(chain: readonly Koa.Middleware[], ctx: Koa.Context, next: Koa.Next): Promise<unknown> {
  const step = async (i: number): Promise<unknown> => (i < chain.length ? chain[i](ctx, () => step(i + 1)) : next());
  return step(0);
}

function register(router: GatewayRouter, route: RouteSpec, chain: readonly Koa.Middleware[]): void {
  const { method, path } = route;
  switch (method) {
    case 'GET':
      router.get(path, ...chain);
      return;
    case 'POST':
      router.post(path, ...chain);
      return;
    case 'DELETE':
      router.delete(path, ...chain);
      return;
    default: {
      const never: never = method;
      return never;
    }
  }
}

function handlerOf(format: FormatModule, route: RouteSpec, h: RouteHandlers): Koa.Middleware {
  switch (route.kind) {
    case 'chat':
      return h.chat(format, route);
    case 'chat-methods':
      return h['chat-methods'](format, route);
    case 'count-tokens':
      return h['count-tokens'](format, route);
    case 'model-list':
      return h['model-list'](format, route);
    case 'model-get':
      return h['model-get'](format, route);
    case 'speech':
      return h.speech(format, route);
    case 'transcription':
      return h.transcription(format, route);
    case 'translation':
      return h.translation(format, route);
    case 'stored-response-get':
      return h['stored-response-get'](format, route);
    case 'stored-response-delete':
      return h['stored-response-delete'](format, route);
    case 'stored-response-input-items':
      return h['stored-response-input-items'](format, route);
    case 'tune-music':
      return h['tune-music'](format, route);
    case 'tune-lyrics':
      return h['tune-lyrics'](format, route);
    case 'tune-upload-url':
      return h['tune-upload-url'](format, route);
    case 'tune-concat':
      return h['tune-concat'](format, route);
    case 'tune-fetch':
      return h['tune-fetch'](format, route);
    case 'tune-task':
      return h['tune-task'](format, route);
    case 'tune-audio':
      return h['tune-audio'](format, route);
    default: {
      const never: never = route;
      return never;
    }
  }
}
