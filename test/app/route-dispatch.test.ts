// dispatchRoutes (src/app/route-dispatch.ts) stands in for @koa/router's own `router.routes()`:
// the same routes (parameters, a `use` layer, two routes on one path, a wildcard) are served by
// both, each answer echoing what the router put on the context (params, captures, the matched
// route's pattern and name, routerPath, how many layers matched, routeMatched), with
// allowedMethods after, and every answer compared over paths × methods.
import t from 'tap';
import Koa from 'koa';
import Router from '@koa/router';
import { dispatchRoutes, matchCache } from '../../src/app/route-dispatch.ts';
import { matchBySegment } from '../../src/app/match-by-segment.ts';
import type { GatewayRouter } from '../../src/services/runtime/gateway-context.ts';

type Answer = { status: number; allow: string | null; used: string | null; first: string | null; body: string };

function routerWithRoutes(): GatewayRouter {
  const router: GatewayRouter = new Router({ sensitive: false, strict: false });
  matchBySegment(router);
  const echo = (tag: string): Koa.Middleware => {
    return (ctx) => {
      const c = ctx as Koa.Context & Record<string, unknown>;
      ctx.body = {
        tag,
        params: c.params,
        requestParams: (ctx.request as unknown as Record<string, unknown>).params,
        captures: c.captures,
        matchedRoute: String(c._matchedRoute),
        matchedRouteName: c._matchedRouteName,
        routerPath: c.routerPath,
        routerName: c.routerName,
        matched: (c.matched as unknown[]).length,
        routeMatched: c.routeMatched,
        routerIsSet: c.router === router,
      };
    };
  };
  router.use('/v1/items', async (ctx, next) => {
    ctx.set('x-used', '1');
    await next();
  });
  router.get('/v1/items', echo('list'));
  router.post('/v1/items', echo('create'));
  router.get('item', '/v1/items/:id', echo('one'));
  router.delete('/v1/items/:id', echo('delete'));
  router.get('/v1/items/:id/parts/:part', echo('part'));
  router.post('/v1beta/models/:target', echo('target'));
  router.get('/', echo('root'));
  router.get('/:anything/status', echo('any-first-segment'));
  router.get('/files/*rest', echo('wildcard'));
  router.get('/v1/twice', async (ctx, next) => {
    ctx.set('x-first', '1');
    await next();
  });
  router.get('/v1/twice', echo('second'));
  return router;
}

function answerWith(dispatch: 'router' | 'ours'): (method: string, path: string) => Promise<Answer> {
  const app = new Koa();
  app.silent = true;
  const router = routerWithRoutes();
  app.use(
    dispatch === 'router'
      ? router.routes()
      : dispatchRoutes(router, (mw) =>
          (app as unknown as { compose: (m: Koa.Middleware[]) => Koa.Middleware }).compose(mw),
        ),
  );
  app.use(router.allowedMethods());
  const handle = app.callback();
  return async (method, path) => {
    const { createServer } = await import('node:http');
    const server = createServer(handle).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
      return {
        status: res.status,
        allow: res.headers.get('allow'),
        used: res.headers.get('x-used'),
        first: res.headers.get('x-first'),
        body: await res.text(),
      };
    } finally {
      server.close();
    }
  };
}

t.test('dispatchRoutes routes as @koa/router does', async (t) => {
  const theirs = answerWith('router');
  const ours = answerWith('ours');
  const paths = [
    '/',
    '/v1/items',
    '/V1/Items/',
    '/v1/items/42',
    '/v1/items/a%20b',
    '/v1/items/42/parts/7',
    '/v1beta/models/gemini:generateContent',
    '/files/a/b.txt',
    '/whatever/status',
    '/v1/twice',
    '/v1/nothing',
    '/elsewhere',
  ];
  let routed = 0;
  for (const path of paths)
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS', 'PROPFIND']) {
      const expected = await theirs(method, path);
      t.same(await ours(method, path), expected, `${method} ${path}`);
      // Asked again: a path without parameters now has its match kept (matchCache), same answer.
      t.same(await ours(method, path), expected, `${method} ${path}, again`);
      if (expected.status === 200 && expected.body.includes('"tag"')) routed++;
    }
  t.ok(routed >= 10, `${routed} answers came from a route`);
});

t.test('a router option dispatchRoutes does not do is refused', async (t) => {
  const compose = (): Koa.Middleware => () => undefined;
  t.throws(() => dispatchRoutes(new Router({ host: 'example.com' }) as GatewayRouter, compose));
  t.throws(() => dispatchRoutes(new Router({ exclusive: true }) as GatewayRouter, compose));
});

t.test('matchCache answers as the router does, sees routes added later, and stays bounded', async (t) => {
  const router = routerWithRoutes();
  const match = matchCache(router);
  const names = (m: ReturnType<GatewayRouter['match']>): unknown => ({
    path: m.path.map((l) => l.path),
    pathAndMethod: m.pathAndMethod.map((l) => l.path),
    route: m.route,
  });
  for (const path of ['/v1/items', '/v1/items/42', '/nothing', '/V1/ITEMS'])
    for (const method of ['GET', 'POST', 'PUT'])
      for (let i = 0; i < 2; i++)
        t.same(names(match(path, method)), names(router.match(path, method)), `${method} ${path}`);
  t.equal(match('/v1/items', 'GET'), match('/v1/items', 'GET'), "a fixed path's answer is kept");
  t.not(match('/v1/items/42', 'GET'), match('/v1/items/42', 'GET'), 'a path with parameters is matched each time');
  t.not(match('/nothing', 'GET'), match('/nothing', 'GET'), 'a path of no route is matched each time');
  router.get('/v1/added', async () => {});
  t.equal(match('/v1/added', 'GET').route, true, 'a route added after the first match is matched');
  // More case variants of one path than the cache holds: answers stay the router's.
  for (let i = 0; i < 600; i++) {
    const path = '/v1/items'.replace(/[a-z]/g, (c, at: number) => ((i >> at) & 1 ? c.toUpperCase() : c));
    t.equal(match(path, 'GET').route, true);
  }
  t.same(names(match('/v1/items', 'POST')), names(router.match('/v1/items', 'POST')), 'after the cache was emptied');
});
