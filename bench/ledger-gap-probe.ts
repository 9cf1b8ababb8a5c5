// Where the ledger-on gateway's time goes at saturation (32 connections, closed loop), against
// the same gateway with the ledger off: per visit the main thread's run time, its wait for the
// core and the rest (asleep in epoll: idle), the event-loop delay and utilization (a preload in
// the gateway, bench/ledger-gap-preload.mjs), and requests per second. Variants as in
// bench/ledger-bench.ts (LEDGER_BENCH_VARIANTS: `off`, `ledger`, `ledger-nobudget`, `ledger-bN`; default `off,ledger`), interleaved rounds;
// beside them how busy the load core was (the load generator and the mock upstream run there): a
// gateway whose main thread is idle while that core is full is waiting for its clients, and its
// saturated rate then says how much of that core it got, not what the gateway costs.
// LEDGER_BENCH_REPEATS (rounds, 4), LEDGER_BENCH_SAT_DURATION (s, 3), LEDGER_BENCH_CONNECTIONS (32),
// LEDGER_BENCH_WARMUP (s, 4), LEDGER_GAP_PROFILE=1 (each gateway with --cpu-prof; the folder is printed).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runAutocannon } from './load-autocannon.ts';
import { coreBusyShare } from './ledger-core-busy.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import { LOAD_CORE, memoryOf, pinSelf, startMockProcess, startPolygate, type Proc } from './processes.ts';
import { sleep, median } from './stats.ts';
import { polygateTarget } from './targets.ts';
import { tmpdir } from 'node:os';

const env = process.env;
const variants = (env.LEDGER_BENCH_VARIANTS ?? 'off,ledger').split(',');
const repeats = Number(env.LEDGER_BENCH_REPEATS ?? 4);
const satS = Number(env.LEDGER_BENCH_SAT_DURATION ?? 3);
const conns = Number(env.LEDGER_BENCH_CONNECTIONS ?? 32);
const preload = join(import.meta.dirname, 'ledger-gap-preload.mjs');
pinSelf(LOAD_CORE);
const path = benchPaths.find((p) => p.inbound === 'messages' && p.upstream === 'openai-chat')!;
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const models = Object.keys(polygateConfig(mock.url).models as object);

function configOf(v: string): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), `ledger-gap-${v}-`));
  return {
    ...polygateConfig(mock.url),
    storage: { driver: 'sqlite', path: join(dir, 'polygate.db') },
    // `ledger-nobudget`: the same ledger without a budget on the key (no budget check per request);
    // `ledger-bN`: with a budget, batches of N records (usage.batch_size; 500 by default).
    usage: v.startsWith('ledger')
      ? {
          ledger: true,
          prices: { models: Object.fromEntries(models.map((m) => [m, { input: 3, output: 15 }])) },
          ...(v === 'ledger-nobudget' ? {} : { budgets: { bench: { usd_per_day: 1_000_000 } } }),
          ...(/^ledger-b\d+$/.test(v) ? { batch_size: Number(v.slice('ledger-b'.length)) } : {}),
        }
      : { ledger: false },
  };
}

/** [run, wait] seconds of each thread of a process. */
function threads(pid: number): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      out.set(tid, [run / 1e9, wait / 1e9]);
    } catch {
      // the thread ended while being read
    }
  }
  return out;
}

async function eld(gw: Proc): Promise<Record<string, number>> {
  const f = `/tmp/lg-eld-${gw.pid}.json`;
  rmSync(f, { force: true });
  process.kill(gw.pid, 'SIGUSR2');
  for (let i = 0; i < 50 && !existsSync(f); i++) await sleep(20);
  const r = JSON.parse(readFileSync(f, 'utf8')) as Record<string, number>;
  return r;
}

const gateways = new Map<string, Proc>();
const profDir = env.LEDGER_GAP_PROFILE ? mkdtempSync(join(tmpdir(), 'ledger-gap-prof-')) : undefined;
for (const v of variants) {
  const prof = profDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profDir, v)}`] : [];
  gateways.set(v, await startPolygate(configOf(v), { nodeArgs: ['--import', preload, ...prof] }));
}
type Row = {
  gcMinorUs: number;
  gcMajorUs: number;
  loadCore: number;
  rps: number;
  cpuUs: number;
  mainRun: number;
  mainWait: number;
  mainIdle: number;
  others: number;
  eldP99: number;
  eldMax: number;
  elu: number;
};
const rows = new Map<string, Row[]>(variants.map((v) => [v, []]));
for (const [, gw] of gateways) {
  const t = polygateTarget(path, gw.url);
  await runAutocannon(t.baseUrl, t.request(false), conns, Number(env.LEDGER_BENCH_WARMUP ?? 4));
}
for (let round = 0; round < repeats; round++) {
  for (const v of variants.map((_, i) => variants[(i + round) % variants.length])) {
    const gw = gateways.get(v)!;
    const t = polygateTarget(path, gw.url);
    await sleep(200);
    await eld(gw);
    const a = threads(gw.pid);
    const load = coreBusyShare(LOAD_CORE);
    const t0 = performance.now();
    const r = await runAutocannon(t.baseUrl, t.request(false), conns, satS);
    const wall = (performance.now() - t0) / 1000;
    const b = threads(gw.pid);
    const e = await eld(gw);
    const main = String(gw.pid);
    const d = (tid: string, i: 0 | 1): number => (b.get(tid)?.[i] ?? 0) - (a.get(tid)?.[i] ?? 0);
    let all = 0;
    for (const tid of b.keys()) all += d(tid, 0);
    const row: Row = {
      loadCore: load(),
      gcMinorUs: (e.minorMs / r.count) * 1000,
      gcMajorUs: (e.majorMs / r.count) * 1000,
      rps: r.rps,
      cpuUs: (all / r.count) * 1e6,
      mainRun: d(main, 0) / wall,
      mainWait: d(main, 1) / wall,
      mainIdle: 1 - (d(main, 0) + d(main, 1)) / wall,
      others: (all - d(main, 0)) / wall,
      eldP99: e.p99,
      eldMax: e.max,
      elu: e.elu,
    };
    rows.get(v)!.push(row);
    const f = (x: number): string => x.toFixed(2);
    process.stderr.write(
      `round ${round + 1} ${v}: ${r.rps.toFixed(0)}/s, ${row.cpuUs.toFixed(0)} µs CPU each; main thread run ${f(row.mainRun)} wait ${f(row.mainWait)} idle ${f(row.mainIdle)} of the wall time; other threads ${f(row.others)}; loop delay p99 ${f(e.p99)} max ${f(e.max)} ms; ELU ${f(e.elu)}; load core busy ${f(row.loadCore)}; GC µs per request: minor ${f(row.gcMinorUs)} (${e.minor}) major ${f(row.gcMajorUs)} (${e.major}); errors ${r.errors}\n`,
    );
  }
}
for (const [v, rs] of rows) {
  const mem = memoryOf(gateways.get(v)!.pid);
  const m = (k: keyof Row): string => median(rs.map((r) => r[k])).toFixed(k === 'rps' || k === 'cpuUs' ? 0 : 2);
  process.stdout.write(
    `${v}: median ${m('rps')}/s, ${m('cpuUs')} µs CPU each, main run ${m('mainRun')} wait ${m('mainWait')} idle ${m('mainIdle')}, others ${m('others')}, loop delay p99 ${m('eldP99')} max ${m('eldMax')} ms, ELU ${m('elu')}, load core busy ${m('loadCore')}, GC µs per request minor ${m('gcMinorUs')} major ${m('gcMajorUs')}; RSS ${((mem?.rss ?? 0) / 2 ** 20).toFixed(0)} MB (peak ${((mem?.peak ?? 0) / 2 ** 20).toFixed(0)} MB)\n`,
  );
}
await Promise.all([...gateways.values()].map((g) => g.stop()).concat(mock.stop()));
if (profDir) process.stdout.write(`profiles: ${profDir}\n`);
