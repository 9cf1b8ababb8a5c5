// skipKoaFinished (src/app/skip-koa-finished.ts) drops Koa's per-request onFinished listener on a
// silent app with no 'error' listener of its own: no listener is added to the response or its
// socket for it, while a stream body's own onFinished (koa's body setter) still attaches and
// still destroys the stream when the response ends; an app with an 'error' listener keeps Koa's.
import t from 'tap';
import Koa from 'koa';
import { createServer, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { skipKoaFinished } from '../../src/app/skip-koa-finished.ts';

type Seen = { finishListeners: number; socketErrorListeners: number };

async function serve(app: Koa, path = '/'): Promise<string> {
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((ok) => server.once('listening', ok));
  try {
    const { port } = server.address() as { port: number };
    return await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
  } finally {
    server.close();
  }
}

function appSeeing(seen: Seen[]): Koa {
  const app = new Koa();
  app.silent = true;
  app.use((ctx) => {
    const res = ctx.res as ServerResponse;
    seen.push({
      finishListeners: res.listenerCount('finish'),
      socketErrorListeners: res.socket?.listenerCount('error') ?? 0,
    });
    ctx.body = 'ok';
  });
  return app;
}

t.test('a silent app without error listeners: Koa adds no listener of its own', async (t) => {
  const plain: Seen[] = [];
  t.equal(await serve(appSeeing(plain)), 'ok');
  const skipped: Seen[] = [];
  const app = appSeeing(skipped);
  skipKoaFinished(app);
  t.equal(await serve(app), 'ok');
  t.equal(skipped[0].finishListeners, plain[0].finishListeners - 1, "Koa's 'finish' listener is not there");
  t.equal(skipped[0].socketErrorListeners, plain[0].socketErrorListeners - 1, "nor its socket 'error' listener");
});

t.test("an app with an 'error' listener keeps Koa's listener", async (t) => {
  const plain: Seen[] = [];
  t.equal(await serve(appSeeing(plain)), 'ok');
  const kept: Seen[] = [];
  const app = appSeeing(kept);
  app.on('error', () => {});
  skipKoaFinished(app);
  t.equal(await serve(app), 'ok');
  t.same(kept[0], plain[0]);
});

t.test("a stream body's own onFinished still attaches", async (t) => {
  const app = new Koa();
  app.silent = true;
  skipKoaFinished(app);
  const counts: number[] = [];
  app.use((ctx) => {
    counts.push(ctx.res.listenerCount('finish'));
    ctx.body = Readable.from(['a', 'b', 'c']);
    counts.push(ctx.res.listenerCount('finish'));
  });
  t.equal(await serve(app), 'abc');
  t.equal(counts[1], counts[0] + 1, "koa's body setter added its listener to the response");
});
