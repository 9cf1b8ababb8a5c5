// CPU per request of the relay's upstream call alone, three ways of making it through http-proxy
// (issue #28, bench/RESULTS.md "Session 12: the relay (passthru)"): a bare node:http server per way
// (no Koa, no polygate) reads the client's JSON body, relays it through http-proxy and a keep-alive
// Agent to the bench's mock upstream, reads the answer whole and writes it back. The ways:
//   options  one proxy for every target, `web(req, res, { target, agent, buffer }, cb)` per request,
//            the body a Buffer the `buffer` pipes in the check phase (main before session 12)
//   hook     one proxy per target with target, agent and a no-op `buffer` in its options,
//            `web(req, res, cb)`, the body a Buffer written from the `proxyReq` hook
//   string   as `hook`, the body sent as the JSON string (head and body one string write)
//   undici   no http-proxy: an undici Pool (keep-alive), the translated path's client, the same body,
//            headers and answer (session 13: what the relay's client costs beside undici, bare)
// Each round loads every way at once (RELAY_MICRO_CONNECTIONS each) and reads each server's CPU time.
//   node bench/relay-client-micro.ts   RELAY_MICRO_ROUNDS (8)  RELAY_MICRO_SECONDS (2)  RELAY_MICRO_CONNECTIONS (16)
import { Agent, createServer, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { parse as parseUrl, type Url } from 'node:url';
import { parseArgs } from 'node:util';
import httpProxy from 'http-proxy';
import { Pool } from 'undici';

const ways = ['options', 'hook', 'string', 'undici'] as const;
const kHook = Symbol('hook');
type Hooked = IncomingMessage & {
  [kHook]?: { request: (p: ClientRequest) => void; response: (p: IncomingMessage) => void };
};
type Way = (typeof ways)[number];

const { values } = parseArgs({
  options: { port: { type: 'string' }, target: { type: 'string' }, way: { type: 'string' } },
});

if (values.way) serve(values.way as Way, Number(values.port), values.target!);
else await measure();

function serve(way: Way, port: number, target: string): void {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo', timeout: 60_000 });
  const targets = new Map<string, Url>();
  const shared = httpProxy.createProxyServer({
    selfHandleResponse: true,
    changeOrigin: true,
    ignorePath: true,
    toProxy: true,
  });
  const events = (proxy: typeof shared): void => {
    proxy.on('proxyReq', (p, req: Hooked) => req[kHook]?.request(p));
    proxy.on('proxyRes', (p, req: Hooked) => req[kHook]?.response(p));
  };
  events(shared);
  const noBody = { pipe: <T>(to: T): T => to };
  const perTarget = new Map<Url, typeof shared>();
  const proxyOf = (t: Url) => {
    let p = perTarget.get(t);
    if (!p) {
      p = httpProxy.createProxyServer({
        target: t,
        agent,
        buffer: noBody as never,
        selfHandleResponse: true,
        changeOrigin: true,
        ignorePath: true,
        toProxy: true,
      });
      events(p);
      perTarget.set(t, p);
    }
    return p;
  };
  const answer = (res: ServerResponse) => (proxyRes: IncomingMessage) => {
    const chunks: Buffer[] = [];
    proxyRes.on('data', (c: Buffer) => chunks.push(c));
    proxyRes.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      res.writeHead(proxyRes.statusCode ?? 502, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  };
  let pool: Pool | undefined;
  createServer((req: Hooked, res) => {
    if (req.method !== 'POST') return void res.end('relay-client-micro');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      let t = targets.get(req.url!);
      if (!t) targets.set(req.url!, (t = parseUrl(target + req.url)));
      const string = way === 'string';
      const payload = string ? json : Buffer.from(json);
      const length = string ? Buffer.byteLength(json) : (payload as Buffer).length;
      req.headers = {
        'content-type': 'application/json',
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        'content-length': String(length),
        'accept-encoding': 'identity',
      };
      const onError = (): void => void res.destroy();
      if (way === 'undici') {
        pool ??= new Pool(new URL(target).origin, { keepAliveTimeout: 60_000 });
        viaUndici(pool, t.path!, req, res, payload, onError);
      } else if (way === 'options') {
        req[kHook] = { request: () => {}, response: answer(res) };
        const buffer = {
          pipe: (to: ClientRequest) => (setImmediate(() => to.destroyed || to.end(payload)), to),
        };
        shared.web(req, res, { target: t, agent, buffer: buffer as never }, onError);
      } else {
        req[kHook] = { request: (p) => setImmediate(() => p.destroyed || p.end(payload)), response: answer(res) };
        const p = proxyOf(t);
        (p.web as (a: IncomingMessage, b: ServerResponse, c: () => void) => void).call(p, req, res, onError);
      }
    });
  }).listen(port, '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}

/** The `undici` way: the answer read whole, then written as the other ways write it. */
function viaUndici(
  pool: Pool,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  payload: Buffer | string,
  onError: () => void,
): void {
  pool.request({ method: 'POST', path, headers: req.headers, body: payload }).then(async (up) => {
    const body = Buffer.from(await up.body.arrayBuffer());
    res.writeHead(up.statusCode, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  }, onError);
}

async function measure(): Promise<void> {
  const { join } = await import('node:path');
  const { runAutocannon } = await import('./load-autocannon.ts');
  const { cpuSecondsPrecise, GATEWAY_CORE, LOAD_CORE, pinSelf, repoRoot, startMockProcess, startNodeProcess } =
    await import('./processes.ts');
  const { frameworkFloorTarget } = await import('./targets.ts');
  const { median } = await import('./stats.ts');
  const rounds = Number(process.env.RELAY_MICRO_ROUNDS ?? 8);
  const seconds = Number(process.env.RELAY_MICRO_SECONDS ?? 2);
  const connections = Number(process.env.RELAY_MICRO_CONNECTIONS ?? 16);
  pinSelf(LOAD_CORE);
  const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
  const servers = await Promise.all(
    ways.map((way) =>
      startNodeProcess(`relay (${way})`, join(repoRoot, 'bench/relay-client-micro.ts'), {
        core: GATEWAY_CORE,
        args: (port) => ['--port', String(port), '--target', mock.url, '--way', way],
      }),
    ),
  );
  const us = new Map<Way, number[]>(ways.map((w) => [w, []]));
  try {
    const reqOf = (url: string) => frameworkFloorTarget('messages', url).request(false);
    await Promise.all(servers.map((s) => runAutocannon(s.url, reqOf(s.url), connections, 1)));
    for (let r = 0; r < rounds; r++) {
      const c0 = servers.map((s) => cpuSecondsPrecise(s.pid));
      const res = await Promise.all(servers.map((s) => runAutocannon(s.url, reqOf(s.url), connections, seconds)));
      servers.forEach((s, i) => us.get(ways[i])!.push(((cpuSecondsPrecise(s.pid) - c0[i]) * 1e6) / res[i].count));
      process.stderr.write(`relay-client-micro: round ${r + 1}/${rounds}\n`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await mock.stop();
  }
  const base = us.get('options')!;
  const lines = [
    '| way | µs CPU / request (median) | ÷ options per round (median, rounds lower) | each round |',
    '|---|---:|---|---|',
  ];
  for (const w of ways) {
    const v = us.get(w)!;
    const ratios = v.map((x, i) => x / base[i]);
    const lower = ratios.filter((x) => x < 1).length;
    lines.push(
      `| ${w} | ${median(v).toFixed(1)} | ${w === 'options' ? '' : `${median(ratios).toFixed(3)} (${lower} of ${rounds})`} | ${v.map((x) => x.toFixed(0)).join(' ')} |`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
}
