// GatewayKoa (src/app/gateway-koa.ts) answers with a copy of Koa's own `respond`, without Koa's
// per-request on-finished listeners. The same middleware is served by Koa and by GatewayKoa and
// every answer compared byte for byte (status, headers but the date, body), so a Koa release whose
// `respond` answers differently fails here instead of drifting unseen.
import t from 'tap';
import { once } from 'node:events';
import { request, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { GatewayKoa } from '../../src/app/gateway-koa.ts';

type Answer = { status: number; headers: string[]; body: string };

const cases: Record<string, Koa.Middleware> = {
  '/json': (ctx) => {
    ctx.body = { a: 1, text: 'é' };
  },
  '/string': (ctx) => {
    ctx.body = 'plain text';
  },
  '/html': (ctx) => {
    ctx.body = '<p>hi</p>';
  },
  '/buffer': (ctx) => {
    ctx.body = Buffer.from('bytes');
  },
  '/stream': (ctx) => {
    ctx.type = 'text/event-stream';
    ctx.body = Readable.from(['data: 1\n\n', 'data: 2\n\n']);
  },
  '/web-stream': (ctx) => {
    ctx.body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('web'));
        c.close();
      },
    });
  },
  '/blob': (ctx) => {
    ctx.body = new Blob(['blob']);
  },
  '/response': (ctx) => {
    ctx.body = new Response('fetch response');
  },
  '/none': () => {},
  '/status-only': (ctx) => {
    ctx.status = 503;
  },
  '/no-content': (ctx) => {
    ctx.body = { dropped: true };
    ctx.status = 204;
  },
  '/not-modified': (ctx) => {
    ctx.status = 304;
  },
  '/explicit-null': (ctx) => {
    ctx.status = 200;
    ctx.body = null;
  },
  '/bypass': (ctx) => {
    ctx.respond = false;
    ctx.res.writeHead(202, { 'x-own': 'yes' });
    ctx.res.end('written by hand');
  },
  '/thrown': () => {
    throw Object.assign(new Error('teapot here'), { status: 418, expose: true, headers: { 'x-why': 'tea' } });
  },
  '/thrown-internal': () => {
    throw new Error('not for clients');
  },
  '/header-then-body': async (ctx) => {
    ctx.set('x-custom', 'v');
    await new Promise((ok) => setImmediate(ok));
    ctx.body = 'late';
  },
};

function serve(app: Koa): Promise<Server> {
  app.silent = true;
  app.use(async (ctx, next) => {
    const handler = cases[ctx.path];
    if (handler) await handler(ctx, next);
  });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => server);
}

function ask(server: Server, method: string, path: string): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i].toLowerCase() !== 'date')
            headers.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        done({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('latin1') });
      });
    });
    req.on('error', fail);
    req.end();
  });
}

t.test('GatewayKoa answers as Koa does', async (t) => {
  const koa = await serve(new Koa());
  const gateway = await serve(new GatewayKoa());
  t.teardown(() => {
    koa.close();
    gateway.close();
  });
  for (const path of [...Object.keys(cases), '/unknown'])
    for (const method of ['GET', 'HEAD']) {
      const expected = await ask(koa, method, path);
      const got = await ask(gateway, method, path);
      t.same(got, expected, `${method} ${path}`);
    }
  // The cases say something: they are not all one answer.
  const statuses = new Set<number>();
  for (const path of Object.keys(cases)) statuses.add((await ask(gateway, 'GET', path)).status);
  t.ok(statuses.size >= 7, `distinct statuses: ${[...statuses].join(' ')}`);
});

t.test('an error thrown by the middleware still reaches ctx.onerror and the app', async (t) => {
  const app = new GatewayKoa();
  const seen: unknown[] = [];
  app.on('error', (err: Error) => seen.push(err.message));
  const server = await serve(app);
  t.teardown(() => server.close());
  const got = await ask(server, 'GET', '/thrown-internal');
  t.equal(got.status, 500);
  t.equal(got.body, 'Internal Server Error');
  t.same(seen, ['not for clients']);
});
