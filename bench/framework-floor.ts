// The framework floor: what polygate's own stack costs with no gateway logic at all. The same
// packages polygate is built on (Koa, @koa/router, koa-body, an undici Pool per upstream origin
// with keep-alive) serving the bench's client paths: parse the JSON body, serialize it again,
// send it to the upstream at the same path; a non-streaming answer is read, parsed and
// serialized again; a stream is relayed as its bytes arrive. polygate cannot cost less than this
// on the same requests; the bare hop (floor-proxy.ts) is the floor of Node's HTTP stack alone.
//
//
// `--client http-proxy`: the upstream call goes through http-proxy and a keep-alive node:http Agent
// instead, as polygate's same-format relay does (the design card's relay package): what that client
// costs beside undici, with nothing else of polygate's (issue #28, bench/json-cpu.ts,
// bench/alloc-per-request.ts); a stream is relayed as its bytes arrive there too.
//
//   node bench/framework-floor.ts --port P --target http://127.0.0.1:MOCKPORT [--client http-proxy]
//
// The same runtime as polygate: its process-wide V8 settings (allocation-site pretenuring off) are
// a runtime choice polygate ships, not gateway logic, so the floor runs under them too (first
// import, as in src/main.ts). `node --allocation-site-pretenuring bench/framework-floor.ts …`
// restores V8's default for both (bench/RESULTS.md, "Session 11: GC mode").
import '../src/app/v8-settings.ts';
import Router from '@koa/router';
import httpProxy from 'http-proxy';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { Agent, type IncomingMessage } from 'node:http';
import { parse as parseUrl } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '0' },
    target: { type: 'string' },
    client: { type: 'string', default: 'undici' },
  },
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
  if (values.client === 'http-proxy') return viaHttpProxy(ctx, body, headers, stream);
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

const proxy = httpProxy.createProxyServer({
  selfHandleResponse: true,
  changeOrigin: true,
  ignorePath: true,
  toProxy: true,
});
const agent = new Agent({ keepAlive: true, maxSockets: 4096, scheduling: 'lifo', timeout: 4_000 });
const targets = new Map<string, ReturnType<typeof parseUrl>>();
/** Each request's answer handler, on the client's request (as polygate's relay hooks it). */
const kAnswer = Symbol('answer');
type Hooked = IncomingMessage & { [kAnswer]?: { answer: (proxyRes: IncomingMessage) => void } };
proxy.on('proxyRes', (proxyRes, req: Hooked) => req[kAnswer]?.answer(proxyRes));

/** The answer read whole, parsed and serialized again, as the undici branch does; a stream relayed as it arrives. */
function viaHttpProxy(ctx: Koa.Context, body: string, headers: Record<string, string>, stream: boolean): Promise<void> {
  const payload = Buffer.from(body);
  let target = targets.get(ctx.url);
  if (!target) targets.set(ctx.url, (target = parseUrl(origin + ctx.url)));
  const req: Hooked = ctx.req;
  req.headers = {};
  return new Promise((resolve, reject) => {
    // An object, not the function itself: a closure stored as a property kept each request alive
    // through young-generation GCs (bench/RESULTS.md, "Session 9").
    req[kAnswer] = {
      answer: (proxyRes) => {
        req[kAnswer] = undefined;
        if (stream) {
          ctx.status = proxyRes.statusCode ?? 502;
          ctx.type = String(proxyRes.headers['content-type'] ?? 'text/event-stream');
          ctx.body = proxyRes;
          return resolve();
        }
        const chunks: Buffer[] = [];
        proxyRes.on('data', (c: Buffer) => chunks.push(c));
        proxyRes.on('end', () => {
          ctx.status = proxyRes.statusCode ?? 502;
          ctx.type = 'application/json';
          ctx.body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          resolve();
        });
      },
    };
    // Sent in the loop's check phase, as polygate's relay sends it (src/families/chat/pass-through.ts, `wholeBody`).
    const buffer = {
      pipe: (to: NodeJS.WritableStream) => (
        setImmediate(() => (to as { destroyed?: boolean }).destroyed || to.end(payload)),
        to
      ),
    };
    proxy.web(
      req,
      ctx.res,
      {
        target,
        agent,
        buffer: buffer as never,
        headers: { ...headers, 'content-length': String(payload.length) },
      },
      reject,
    );
  });
}

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
