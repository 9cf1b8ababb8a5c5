// @koa/router's dispatch (`router.routes()`) does per request, besides matching: reads `ctx.host`
// for its host option (a header split), formats its disabled `debug` call, builds a closure per
// matched layer, composes the chain anew (koa-compose's flatten and dispatch) and copies the
// matched layers reversed to name the route: ~2 % of a translated request's CPU and ~1.5 KB
// (bench/RESULTS.md, "Session 10"). The app's router has no host, no `exclusive`, no `routerPath`
// option, no NotFound handler and is not nested, so its dispatch is this: the router's own match
// (by first segment, src/app/match-by-segment.ts), what it matched noted on the context as the
// router notes it, and the matched layers' chain, composed once per layer. The router's `match`
// (its layers' regular expressions, and its disabled `debug` call formatted per layer tested) runs
// once per method and path of a route without parameters: its answer is kept (matchCache).
import type Koa from 'koa';
import type { GatewayMiddleware, GatewayRouter } from '../services/runtime/gateway-context.ts';

type Layer = GatewayRouter['stack'][number];
export type Compose = (middleware: Koa.Middleware[]) => Koa.Middleware;
/** What @koa/router sets on the context it routes (its RouterContext). */
type Routed = Koa.Context & {
  matched?: Layer[];
  router?: GatewayRouter;
  routeMatched?: boolean;
  captures?: string[];
  params?: Record<string, string>;
  routerPath?: string;
  routerName?: string;
  _matchedRoute?: string | RegExp;
  _matchedRouteName?: string;
  [pathKey]?: string;
};

/** The path the route was matched on, for the layers' captures and parameters. */
const pathKey = Symbol('polygate.routedPath');

/**
 * The router's middleware, as `router.routes()` but composed once per matched layer. `compose` is
 * the app's own (Koa's `app.compose`, koa-compose). Throws for a router option this does not do.
 */
export function dispatchRoutes(router: GatewayRouter, compose: Compose): GatewayMiddleware {
  const opts = router.opts as { host?: unknown; routerPath?: unknown; exclusive?: unknown };
  if (opts.host !== undefined || opts.routerPath !== undefined || opts.exclusive)
    throw new Error('dispatchRoutes: a router with host, routerPath or exclusive is dispatched by router.routes()');
  const preludes = new Map<Layer, Koa.Middleware>();
  const chains = new Map<Layer, Koa.Middleware>();
  const preludeOf = (layer: Layer): Koa.Middleware => {
    let p = preludes.get(layer);
    if (p === undefined) preludes.set(layer, (p = prelude(layer)));
    return p;
  };
  const chainOf = (layer: Layer): Koa.Middleware => {
    let c = chains.get(layer);
    if (c === undefined) chains.set(layer, (c = compose([preludeOf(layer), ...(layer.stack as Koa.Middleware[])])));
    return c;
  };
  const match = matchCache(router);
  return (context, next) => {
    const ctx = context as Routed;
    const requestPath = ctx.path;
    const m = match(requestPath, ctx.method);
    if (ctx.matched) ctx.matched.push(...m.path);
    // A copy: the answer may be a kept one, and the context's list is the request's own.
    else ctx.matched = m.path.slice();
    ctx.router = router;
    ctx.routeMatched = m.route;
    if (!m.route) return next();
    const layers = m.pathAndMethod;
    // The route is named by the last matched layer that has methods (a route, not a `use`).
    for (let i = layers.length - 1; i >= 0; i--) {
      if (layers[i].methods.length === 0) continue;
      ctx._matchedRoute = layers[i].path;
      if (layers[i].name) ctx._matchedRouteName = layers[i].name;
      break;
    }
    ctx[pathKey] = requestPath;
    const chain =
      layers.length === 1
        ? chainOf(layers[0])
        : compose(layers.flatMap((l) => [preludeOf(l), ...(l.stack as Koa.Middleware[])]));
    return chain(ctx, next) as Promise<void>;
  };
}

/** What @koa/router runs before a layer's own middleware: its captures, parameters and names on the context. */
function prelude(layer: Layer): Koa.Middleware {
  return (context, next) => {
    const ctx = context as Routed;
    const path = ctx[pathKey] ?? ctx.path;
    ctx.captures = layer.captures(path);
    const params = layer.params(path, ctx.captures || [], ctx.params);
    (ctx.request as { params?: Record<string, string> }).params = params;
    ctx.params = params;
    ctx.routerPath = layer.path as string;
    ctx.routerName = layer.name || undefined;
    ctx._matchedRoute = layer.path;
    if (layer.name) ctx._matchedRouteName = layer.name;
    return next();
  };
}

type Match = ReturnType<GatewayRouter['match']>;

/** How many answers matchCache keeps (the app's client and operator routes need a few dozen). */
const matchCacheSize = 256;

/**
 * The router's `match`, its answers kept per method and path for paths that matched a route and
 * whose matched layers have no parameters (a fixed path: the same answer every time; the answer
 * does not depend on anything but the path, the method and the routes). A path with parameters
 * (ids) or no route (404s) is matched every time, so such paths cannot fill it; it holds at most
 * `matchCacheSize` answers (emptied when full: case variants of a path are distinct paths) and is
 * emptied when routes are added.
 */
export function matchCache(router: GatewayRouter): (path: string, method: string) => Match {
  let byMethod = new Map<string, Map<string, Match>>();
  let size = 0;
  let routes = router.stack.length;
  return (path, method) => {
    if (routes !== router.stack.length || size >= matchCacheSize) {
      byMethod = new Map();
      size = 0;
      routes = router.stack.length;
    }
    let paths = byMethod.get(method);
    const kept = paths?.get(path);
    if (kept !== undefined) return kept;
    const m = router.match(path, method);
    if (!m.route || m.path.some((l) => l.paramNames.length > 0)) return m;
    if (paths === undefined) byMethod.set(method, (paths = new Map()));
    paths.set(path, m);
    size++;
    return m;
  };
}
