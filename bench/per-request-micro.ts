// `node bench/per-request-micro.ts`: CPU of three per-request steps in this process, for this
// checkout and (BENCH_BEFORE) an older one, alternating (issue #28, session 9): the access line
// (stdout to /dev/null: run with `> /dev/null`; figures go to stderr), @koa/router's match of
// POST /v1/messages among every route the app registers (session 11: through matchCache where the
// checkout has it, as the app dispatches), the `anthropic-version` check, and (session 10)
// authenticating the bench key (its SHA-256 and the key ring's lookup).
// In-process and single-threaded apart from the log's write(2): steadier than a gateway under load.
import Router from '@koa/router';
import { beforeDir, repoRoot } from './processes.ts';

const dirs = [repoRoot, ...(beforeDir ? [beforeDir] : [])];
const fields = {
  request_id: 'b0f8c5b2-6a47-4c2e-9b7e-0f1d2c3b4a59',
  method: 'POST',
  route: '/v1/messages',
  key: 'bench',
  model: 'bench-openai-chat',
  upstream_model: 'gpt-bench',
  family: 'messages',
  inbound_format: 'messages',
  upstream_format: 'chat',
  provider: 'openai',
  mode: 'translate',
  outcome: 'ok',
  status: 200,
  duration_ms: 2.345,
  ttfb_ms: undefined,
  decode_ms: 0.05,
  encode_ms: 0.03,
  upstream_attempts: 1,
  tokens_in: 120,
  tokens_out: 40,
};

/** µs of process CPU (all threads) per call of `step`, called in turns of 32 as requests come. */
async function perCall(n: number, step: () => void): Promise<number> {
  let i = 0;
  const t0 = process.cpuUsage();
  await new Promise<void>((done) => {
    const turn = (): void => {
      for (let k = 0; k < 32 && i < n; k++, i++) step();
      if (i < n) setImmediate(turn);
      else done();
    };
    turn();
  });
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}

type Steps = { name: string; line: () => void; match: () => void; version: () => void; auth: () => void };

async function stepsOf(dir: string): Promise<Steps> {
  const logger = (await import(`${dir}/src/infra/log/logger.ts`)) as Record<string, (...a: unknown[]) => unknown>;
  const log = logger.createLogger('info') as { child(b: object, o: object): { info(f: object): void } };
  // The tree before has no accessLine: its access line was pino's, on a child without redaction.
  const line = logger.accessLine
    ? (logger.accessLine(log) as (l: string, f: object) => void).bind(undefined, 'info', fields)
    : (
        (child) => () =>
          child.info(fields)
      )(log.child({}, { redact: [] }));
  const { formats } = (await import(`${dir}/src/infra/formats/formats.ts`)) as {
    formats: { routes: { method: string; path: string }[] }[];
  };
  let group: ((r: unknown) => void) | undefined;
  try {
    group = ((await import(`${dir}/src/app/match-by-segment.ts`)) as { matchBySegment: (r: unknown) => void })
      .matchBySegment;
  } catch {
    group = undefined;
  }
  const router = new Router({ sensitive: false, strict: false }) as unknown as Record<
    string,
    (p: string, ...m: unknown[]) => void
  > & { match(p: string, m: string): unknown };
  group?.(router);
  const noop = async (): Promise<void> => {};
  for (const p of ['/', '/healthz', '/metrics']) router.get(p, noop);
  const seen = new Set<string>();
  for (const f of formats)
    for (const r of f.routes)
      if (!seen.has(`${r.method} ${r.path}`)) {
        seen.add(`${r.method} ${r.path}`);
        router[r.method.toLowerCase()](r.path, noop);
      }
  for (const p of ['/admin/providers', '/admin/models', '/admin/usage', '/admin/budgets', '/admin/keys'])
    router.get(p, noop);
  for (const p of ['/admin/keys/:id', '/admin/requests', '/admin/requests/:request_id', '/v1/me', '/console'])
    router.get(p, noop);
  for (const p of ['/admin/keys/:id/disable', '/admin/keys/:id/enable', '/admin/keys/:id/rotate', '/console/session'])
    router.post(p, noop);
  // Session 11: the app dispatches through matchCache (src/app/route-dispatch.ts) where the checkout has it.
  const dispatch = (await import(`${dir}/src/app/route-dispatch.ts`)) as {
    matchCache?: (r: unknown) => (p: string, m: string) => unknown;
  };
  const match = dispatch.matchCache?.(router) ?? ((p: string, m: string) => router.match(p, m));
  const { checkVersion } = (await import(`${dir}/adapters/anthropic-messages/messages-version.ts`)) as {
    checkVersion: (h: object) => void;
  };
  const headers = { 'anthropic-version': '2023-06-01' };
  const { KeyRing } = (await import(`${dir}/src/services/auth/key-ring.ts`)) as {
    KeyRing: new (k: object[]) => object;
  };
  const { authenticateKey } = (await import(`${dir}/src/services/auth/runtime-keys.ts`)) as {
    authenticateKey: (ring: object, runtime: undefined, credential: string) => unknown;
  };
  const ring = new KeyRing([{ id: 'bench', secret: 'sk-polygate-bench', workspace: 'bench', models: ['*'] }]);
  return {
    name: dir === repoRoot ? 'this checkout' : `before (${dir})`,
    line,
    match: () => void match('/v1/messages', 'POST'),
    version: () => checkVersion(headers),
    auth: () => void authenticateKey(ring, undefined, 'sk-polygate-bench'),
  };
}

const all = await Promise.all(dirs.map(stepsOf));
const results = new Map(
  all.map((s) => [
    s.name,
    { line: [] as number[], match: [] as number[], version: [] as number[], auth: [] as number[] },
  ]),
);
for (let round = 0; round < 4; round++)
  for (const s of round % 2 === 0 ? all : [...all].reverse()) {
    const r = results.get(s.name)!;
    r.line.push(await perCall(100_000, s.line));
    r.match.push(await perCall(300_000, s.match));
    r.version.push(await perCall(1_000_000, s.version));
    r.auth.push(await perCall(300_000, s.auth));
  }
const med = (a: number[]): string => [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(3);
process.stderr.write(
  '| checkout | access line µs | router match µs | anthropic-version µs | authenticate µs |\n|---|---:|---:|---:|---:|\n',
);
for (const [name, r] of results)
  process.stderr.write(`| ${name} | ${med(r.line)} | ${med(r.match)} | ${med(r.version)} | ${med(r.auth)} |\n`);
