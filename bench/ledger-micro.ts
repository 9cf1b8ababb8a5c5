// `node bench/ledger-micro.ts [BEFORE_DIR]`: CPU per request of the usage ledger's and tracing's
// own work, in one process, without HTTP: what `npm run bench:ledger` cannot resolve on a shared
// machine (a few µs in ~150). Per simulated request, the hooks src/app.ts and the chat handler
// call, in order:
//   ledger:  enforceBudget (budget on the key) → recordUsage (price, spend metric, record queued)
//            → the ledger's batched sqlite write;
//   traces:  a sampled request's trace (start, decode, one route attempt with its upstream call,
//            encode, end) → its spans exported as OTLP/HTTP JSON to a sink in another process;
//            `traces@0`: the same hooks for a request the sampler left out; `both@0.01`: ledger and
//            traces at the default sample_ratio (1 in 100 sampled).
// BEFORE_DIR: another checkout (e.g. a `git archive` of an older commit with node_modules linked)
// whose modules are loaded side by side in this process and measured in alternation with this
// tree's, so both see the same machine. LEDGER_MICRO_ONLY=neither|ledger|traces|both|traces@0|both@0.01, LEDGER_MICRO_N
// (requests per measurement, 20000). CPU time of this process (all threads: sqlite runs on the
// main one, the export's socket work too).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Hooks = {
  enforceBudget(ctx: unknown): Promise<void>;
  recordUsage(state: unknown, labels: unknown, status: number): void;
  closeLedger(): Promise<void>;
  startRequestTrace(ctx: unknown, startedAt: number): void;
  traceOf(state: object): { decoded(r: unknown, t: number): void; attempt(route: unknown, n: number): (e?: unknown) => void; upstream(p: string, f: string, m: string): { end(s: number): void } } | undefined;
  traceStep(state: object, name: string, startedAt: number): void;
  endRequestTrace(ctx: unknown, labels: unknown, status: number, ttfb: number | undefined): void;
  closeTracing(): Promise<void>;
};

async function load(dir: string): Promise<Hooks> {
  const m = async (p: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(join(dir, p)).href)) as Record<string, unknown>;
  const [budgets, usage, ledger, trace, tracer] = await Promise.all([
    m('src/usage/budgets.ts'),
    m('src/usage/record-usage.ts'),
    m('src/usage/process-ledger.ts'),
    m('src/tracing/request-trace.ts'),
    m('src/tracing/tracer.ts'),
  ]);
  return { ...budgets, ...usage, ...ledger, ...trace, ...tracer } as unknown as Hooks;
}

// A sink in another process, so its CPU is not counted here.
const sink = spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.end('{}'))}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((ok) => sink.stdout!.once('data', (b: Buffer) => ok(Number(String(b).trim()))));

function configOf(ledger: boolean, tracing: boolean, ratio: number): Record<string, unknown> {
  return {
    storage: { driver: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'ledger-micro-')), 'polygate.db') },
    usage: { ledger, flush_interval_ms: 1000, batch_size: Number(process.env.LEDGER_MICRO_BATCH ?? 500), retention_days: 400, prices: { models: { bench: { input: 3, output: 15 } }, providers: {} }, budgets: { bench: { usd_per_day: 1e6 } } },
    tracing: { ...(tracing ? { endpoint: `http://127.0.0.1:${port}/v1/traces` } : {}), headers: {}, service_name: 'polygate', sample_ratio: ratio, max_queue_size: 4096, export_interval_ms: 1000 },
    log: { content: false },
    providers: { openai: { type: 'openai' } },
  };
}

const request = { model: 'bench', stream: false, maxTokens: 64, sampling: {}, tools: [], messages: [], system: [] };
const route = { provider: 'openai', model: 'gpt-bench' };
const labels = { family: 'messages', inbound_format: 'anthropic-messages', upstream_format: 'openai-chat', provider: 'openai', mode: 'translate', outcome: 'ok' };

async function oneRequest(h: Hooks, config: Record<string, unknown>, ledger: boolean, tracing: boolean, i: number): Promise<void> {
  const state = {
    family: 'messages',
    requestId: `req-${i}`,
    runtime: { config, router: { resolve: () => ({ entry: 'bench' }) } },
    key: { id: 'bench', workspace: 'bench' },
    model: 'bench',
    path: { provider: 'openai', upstreamModel: 'gpt-bench', upstream_format: 'openai-chat', mode: 'translate' },
    usage: { inputTokens: 12, outputTokens: 40 },
    attempts: { attempts: 1 },
  };
  const ctx = { method: 'POST', path: '/v1/messages', headers: {}, state, _matchedRoute: '/v1/messages' };
  const t0 = performance.now();
  if (tracing) h.startRequestTrace(ctx, t0);
  if (ledger) await h.enforceBudget(ctx);
  const t = h.traceOf(state);
  t?.decoded(request, t0);
  const endAttempt = t?.attempt(route, 1);
  t?.upstream('openai', 'openai-chat', 'gpt-bench').end(200);
  endAttempt?.();
  if (tracing) h.traceStep(state, 'polygate.encode', performance.now());
  h.recordUsage(state, labels, 200);
  if (tracing) h.endRequestTrace(ctx, labels, 200, undefined);
}

/** CPU µs per request over `n` requests, 100 per turn of the event loop (the immediates and exports run between). */
async function measure(h: Hooks, config: Record<string, unknown>, ledger: boolean, tracing: boolean, n: number): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    await oneRequest(h, config, ledger, tracing, i);
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 20));
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

const trees: [string, string][] = [['this tree', resolve(import.meta.dirname, '..')]];
if (process.argv[2]) trees.unshift(['before', resolve(process.argv[2])]);
const n = Number(process.env.LEDGER_MICRO_N ?? 20_000);
const only = process.env.LEDGER_MICRO_ONLY; // one of the names below
const configurations = (
  [
    ['neither', false, false, 1],
    ['ledger', true, false, 1],
    ['traces', false, true, 1],
    ['both', true, true, 1],
    ['traces@0', false, true, 0],
    ['both@0.01', true, true, 0.01],
  ] as const
).filter(([w]) => !only || w === only);
for (const [what, ledger, tracing, ratio] of configurations) {
  const loaded = await Promise.all(trees.map(async ([name, dir]) => ({ name, h: await load(`${dir}/`), config: configOf(ledger, tracing, ratio) })));
  // Each tree's modules are loaded once per configuration (fresh module instances through a query
  // string would re-read them; instead the singletons are closed after each configuration).
  const results = new Map<string, number[]>(loaded.map((l) => [l.name, []]));
  for (let round = 0; round < 5; round++) {
    for (const l of round % 2 ? [...loaded].reverse() : loaded) results.get(l.name)!.push(await measure(l.h, l.config, ledger, tracing, n));
  }
  const med = (v: number[]): number => [...v].sort((a, b) => a - b)[v.length >> 1];
  process.stdout.write(`${what}: ${loaded.map((l) => `${l.name} ${med(results.get(l.name)!).toFixed(2)} µs (${results.get(l.name)!.map((x) => x.toFixed(1)).join(' ')})`).join(' · ')}\n`);
  for (const l of loaded) await Promise.all([l.h.closeLedger(), l.h.closeTracing()]);
}
sink.kill();
