// The router grouped by first path segment (src/app/match-by-segment.ts) must match exactly what
// @koa/router matches over all its routes: same layers, same order, same "route matched" answer,
// for every path shape a client can send (case, trailing slash, parameters, unknown segments,
// non-ASCII, no leading slash).
import Router from '@koa/router';
import t from 'tap';
import { matchBySegment } from '../../src/app/match-by-segment.ts';
import type { GatewayRouter } from '../../src/services/runtime/gateway-context.ts';

const noop = async (): Promise<void> => {};

function routes(r: GatewayRouter): GatewayRouter {
  r.get('/', noop);
  r.get('/healthz', noop);
  r.post('/v1/messages', noop);
  r.post('/v1/chat/completions', noop);
  r.get('/v1/models', noop);
  r.get('/v1/models/:model', noop);
  r.post('/v1beta/models/:target', noop);
  r.get('/admin/keys/:id', noop);
  r.delete('/admin/keys/:id', noop);
  r.post('/admin/keys/:id/rotate', noop);
  // A first segment that is a parameter: in every group, in its place.
  r.get('/:anything/status', noop);
  r.get('/console', noop);
  r.post('/v1/models/:target', noop);
  return r;
}

const plain = routes(new Router({ sensitive: false, strict: false }));
const grouped = new Router({ sensitive: false, strict: false });
matchBySegment(grouped);
routes(grouped);

const paths = [
  '/',
  '//',
  '/healthz',
  '/HEALTHZ/',
  '/v1/messages',
  '/V1/Messages/',
  '/v1/models',
  '/v1/models/gpt-4o',
  '/v1beta/models/gemini:generateContent',
  '/v1/models/x:y',
  '/admin/keys/abc',
  '/Admin/Keys/abc/rotate',
  '/admin/status',
  '/v1/status',
  '/unknown/status',
  '/unknown',
  '/console',
  '/consolé',
  '/\u212Aey/status',
  '/v1%2fmessages',
  '*',
  '',
];
const index = (r: GatewayRouter, layers: unknown[]): number[] => layers.map((l) => r.stack.indexOf(l as never));

for (const method of ['GET', 'POST', 'DELETE', 'PUT'])
  for (const path of paths) {
    const a = plain.match(path, method);
    const b = grouped.match(path, method);
    t.same(
      { path: index(grouped, b.path), both: index(grouped, b.pathAndMethod), route: b.route },
      { path: index(plain, a.path), both: index(plain, a.pathAndMethod), route: a.route },
      `${method} ${JSON.stringify(path)}`,
    );
  }

// Routes added after the first request are found too (the groups are rebuilt).
grouped.get('/late/route', noop);
t.equal(grouped.match('/late/route', 'GET').route, true, 'a route registered later matches');
t.equal(grouped.stack.length, plain.stack.length + 1, 'the router keeps all its routes');
