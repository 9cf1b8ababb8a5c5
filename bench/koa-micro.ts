// `node bench/koa-micro.ts`: process CPU per request (client, server and all, one process) of two
// small apps over loopback HTTP, in alternating rounds (issue #28, session 10): @koa/router's
// `router.routes()` against dispatchRoutes (src/app/route-dispatch.ts) over the app's own routes.
// Each app answers POST /v1/messages with a small JSON body; the client and the body are the same
// for all, so the differences are the server's. KOA_MICRO_ROUNDS (8), KOA_MICRO_REQUESTS (4000).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { Pool } from 'undici';
import { dispatchRoutes } from '../src/app/route-dispatch.ts';
import { matchBySegment } from '../src/app/match-by-segment.ts';
import { formats } from '../src/infra/formats/formats.ts';
import type { GatewayRouter } from '../src/services/runtime/gateway-context.ts';

const rounds = Number(process.env.KOA_MICRO_ROUNDS ?? 8);
const requests = Number(process.env.KOA_MICRO_REQUESTS ?? 4000);
const concurrency = 8;

function appRouter(): GatewayRouter {
  const router: GatewayRouter = new Router({ sensitive: false, strict: false });
  matchBySegment(router);
  const answer: Koa.Middleware = (ctx) => {
    ctx.body = { id: 'msg_1', type: 'message', content: [{ type: 'text', text: 'hello' }] };
  };
  for (const p of ['/', '/healthz', '/metrics']) router.get(p, answer);
  const seen = new Set<string>();
  for (const f of formats)
    for (const r of f.routes)
      if (!seen.has(`${r.method} ${r.path}`)) {
        seen.add(`${r.method} ${r.path}`);
        (router as unknown as Record<string, (p: string, m: Koa.Middleware) => void>)[r.method.toLowerCase()](
          r.path,
          answer,
        );
      }
  return router;
}

type Variant = { name: string; server: Server; pool: Pool };

async function variant(name: string, app: Koa, routes: 'router' | 'dispatch'): Promise<Variant> {
  app.silent = true;
  const router = appRouter();
  app.use(
    routes === 'router'
      ? router.routes()
      : dispatchRoutes(router, (m) => (app as unknown as { compose(x: Koa.Middleware[]): Koa.Middleware }).compose(m)),
  );
  app.use(router.allowedMethods());
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((ok) => server.once('listening', ok));
  const { port } = server.address() as AddressInfo;
  return { name, server, pool: new Pool(`http://127.0.0.1:${port}`, { connections: concurrency }) };
}

const body = JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });

/** µs of process CPU per request, `requests` requests with `concurrency` in flight. */
async function cpuPerRequest(v: Variant, n: number): Promise<number> {
  let sent = 0;
  const t0 = process.cpuUsage();
  const worker = async (): Promise<void> => {
    while (sent < n) {
      sent++;
      const res = await v.pool.request({
        method: 'POST',
        path: '/v1/messages',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.body.text();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}

const variants = [
  await variant('Koa + router.routes()', new Koa(), 'router'),
  await variant('Koa + dispatchRoutes', new Koa(), 'dispatch'),
];
for (const v of variants) await cpuPerRequest(v, requests / 2);
const us = new Map(variants.map((v) => [v.name, [] as number[]]));
for (let r = 0; r < rounds; r++)
  for (const v of r % 2 === 0 ? variants : [...variants].reverse())
    us.get(v.name)!.push(await cpuPerRequest(v, requests));
for (const v of variants) {
  await v.pool.close();
  v.server.close();
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1];
const base = us.get(variants[0].name)!;
console.log(
  `Process CPU per request, in-process loopback HTTP, ${rounds} alternating rounds of ${requests} (\`node bench/koa-micro.ts\`)\n`,
);
console.log("| variant | µs / request (median) | ÷ Koa + router.routes(), median of the rounds' pairs | each round |");
console.log('|---|---:|---:|---|');
for (const [name, a] of us)
  console.log(
    `| ${name} | ${median(a).toFixed(1)} | ${median(a.map((x, i) => x / base[i])).toFixed(3)} | ${a.map((x) => x.toFixed(0)).join(' ')} |`,
  );
