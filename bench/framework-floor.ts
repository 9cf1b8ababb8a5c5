// The framework floor: what polygate's own stack costs with no gateway logic at all. The same
// packages polygate is built on (Koa, @koa/router, koa-body, an undici Pool per upstream origin
// with keep-alive) serving the bench's client paths: parse the JSON body, serialize it again,
// send it to the upstream at the same path; a non-streaming answer is read, parsed and
// serialized again; a stream is relayed as its bytes arrive. polygate cannot cost less than this
// on the same requests; the bare hop (floor-proxy.ts) is the floor of Node's HTTP stack alone.
//
//   node bench/framework-floor.ts --port P --target http://127.0.0.1:MOCKPORT
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: { port: { type: 'string', default: process.env.PORT ?? '0' }, target: { type: 'string' } },
});
if (!values.target) throw new Error('--target is required');
const origin = new URL(values.target).origin;
// One pool per upstream origin, as a gateway keeps one per provider; this floor has one upstream.
const pools = new Map<string, Pool>([[origin, new Pool(origin, { keepAliveTimeout: 60_000 })]]);

/** The client's credential and version headers travel on, as any relay sends its own. */
const forwarded = ['authorization', 'x-api-key', 'x-goog-api-key', 'anthropic-version'];

const relay: Koa.Middleware = async (ctx) => {
  const body = JSON.stringify(ctx.request.body);
  const stream =
    (ctx.request.body as { stream?: unknown }).stream === true || ctx.path.endsWith(':streamGenerateContent');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const h of forwarded) {
    const v = ctx.get(h);
    if (v) headers[h] = v;
  }
  const up = await pools.get(origin)!.request({ method: 'POST', path: ctx.url, headers, body });
  ctx.status = up.statusCode;
  if (stream) {
    ctx.type = String(up.headers['content-type'] ?? 'text/event-stream');
    ctx.body = up.body;
  } else {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(JSON.parse(await up.body.text()));
  }
};

const router = new Router();
router.get('/', (ctx) => void (ctx.body = 'framework floor'));
for (const path of ['/v1/messages', '/v1/chat/completions', '/v1/responses', '/v1beta/models/:target'])
  router.post(path, relay);

const app = new Koa();
app.use(koaBody({ json: true, text: false, urlencoded: false, multipart: false, jsonStrict: true }));
app.use(router.routes());
const server = app.listen(Number(values.port), '127.0.0.1');
server.keepAliveTimeout = 120_000;
server.requestTimeout = 0;
process.on('SIGTERM', () => process.exit(0));
