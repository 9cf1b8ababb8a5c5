// `npm run bench:ledger`: what the usage ledger and traces cost on the translated path
// (Messages → OpenAI Chat Completions, the mock upstream of bench/), against issue #18's goal (no
// more than 5 % fewer requests per second with both on).
//
// One polygate process per configuration ("variant"), all on the same config but for usage and
// tracing, all pinned to the gateway core, measured in interleaved rounds (each round visits every
// variant, in a rotated order) so a slow moment of the shared machine hits them alike. Per visit:
//   1. a FIXED offered rate (open loop, well below saturation): the gateway's CPU time per request,
//      from the scheduler's per-thread accounting (bench/processes.ts cpuSecondsPrecise), which
//      does not depend on how busy the rest of the machine is; on one core the saturated rate is
//      about 1 / CPU per request, so "fewer requests per second" = 1 − CPU(off) / CPU(variant);
//      the main thread's share beside it (what bounds the rate when other threads get other cores);
//   2. saturation (32 connections, closed loop): requests per second measured directly (noisy
//      on a shared machine; reported beside the derived figure), with the CPU per request there and
//      the share of the time the gateway's main thread was idle (neither running nor waiting for
//      its core). A saturated visit is kept only when the gateway was the bottleneck: its main
//      thread idle less than LEDGER_BENCH_MAX_IDLE (10 %) of the time. Otherwise it waited for its
//      clients: the load generator and the mock share the load core with the rest of the machine,
//      that core was full (measured 2026-11-23, bench/RESULTS.md), and the rate then said how much
//      of it they got, not what the gateway costs.
// Medians over the rounds.
//
// Environment: LEDGER_BENCH_VARIANTS (comma-separated, default `off,ledger,both@default,both@1`;
// `off`, `ledger`, `tracing@R`, `both@R` with R a sample_ratio or `default` = the schema's),
// LEDGER_BENCH_RATE (offered req/s, 1000), LEDGER_BENCH_DURATION (s per fixed-rate visit, 5),
// LEDGER_BENCH_SAT_DURATION (s per saturation visit, 3; 0 skips it), LEDGER_BENCH_REPEATS (rounds, 5),
// LEDGER_BENCH_CONNECTIONS (saturation connections, 32), LEDGER_BENCH_WARMUP (s per gateway before round 1, 5), LEDGER_BENCH_MAX_WAIT (0.05), LEDGER_BENCH_MAX_IDLE (0.1), LEDGER_BENCH_PROFILE=VARIANT (that gateway
// runs with --cpu-prof; its summary is printed at the end, as bench/profile.ts does).
// LEDGER_BENCH_BEFORE=DIR: another checkout (an older commit, `git archive` + node_modules linked);
// variants prefixed `before:` (e.g. `before:off,before:both@1`) run from it, interleaved with this
// tree's in the same rounds: before and after measured on the same machine at the same moments.
import { mkdtempSync, readdirSync } from 'node:fs';
import { ledgerVariantConfig, startOtlpSink } from './ledger-variants.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAutocannon } from './load-autocannon.ts';
import { coreBusyShare } from './ledger-core-busy.ts';
import { benchPaths } from './paths.ts';
import {
  cpuSecondsPrecise,
  waitSecondsOf,
  LOAD_CORE,
  machineBusySeconds,
  pinning,
  pinSelf,
  startMockProcess,
  startPolygate,
  type Proc,
} from './processes.ts';
import { median, sleep } from './stats.ts';
import { renderProfile, summarizeProfile } from './summarize-profile.ts';
import { polygateTarget } from './targets.ts';

const env = process.env;
const rate = Number(env.LEDGER_BENCH_RATE ?? 1000);
const durationS = Number(env.LEDGER_BENCH_DURATION ?? 5);
const satS = Number(env.LEDGER_BENCH_SAT_DURATION ?? 3);
const repeats = Number(env.LEDGER_BENCH_REPEATS ?? 5);
const conns = Number(env.LEDGER_BENCH_CONNECTIONS ?? 32);
/** The first rounds of a run measured every variant high with 2 s of warm-up. */
const warmupS = Number(env.LEDGER_BENCH_WARMUP ?? 5);
const variants = (env.LEDGER_BENCH_VARIANTS ?? 'off,ledger,both@default,both@1').split(',').map((v) => v.trim());
if (!variants.includes('off')) variants.unshift('off');
const log = (s: string): void => void process.stderr.write(`${s}\n`);

pinSelf(LOAD_CORE);
const path = benchPaths.find((p) => p.inbound === 'messages' && p.upstream === 'openai-chat')!;

const sink = await startOtlpSink();
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const configOf = (variant: string): Record<string, unknown> => ledgerVariantConfig(variant, mock.url, sink.url);

const profileDir = env.LEDGER_BENCH_PROFILE ? mkdtempSync(join(tmpdir(), 'ledger-bench-prof-')) : undefined;
const gateways = new Map<string, Proc>();
for (const v of variants) {
  const prof =
    profileDir && env.LEDGER_BENCH_PROFILE === v ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {};
  const before = v.startsWith('before:');
  if (before && !env.LEDGER_BENCH_BEFORE) throw new Error(`${v} needs LEDGER_BENCH_BEFORE=DIR`);
  gateways.set(v, await startPolygate(configOf(v), { ...prof, ...(before ? { dir: env.LEDGER_BENCH_BEFORE } : {}) }));
}

type Cell = {
  cpuUs: number[];
  mainUs: number[];
  waits: number[];
  sat: number[];
  satCpuUs: number[];
  satIdle: number[];
  loadBusy: number[];
  achieved: number[];
};
const cells = new Map<string, Cell>(
  variants.map((v) => [
    v,
    { cpuUs: [], mainUs: [], waits: [], sat: [], satCpuUs: [], satIdle: [], loadBusy: [], achieved: [] },
  ]),
);
/** A visit whose main thread waited for its core longer than this share of the time it ran was disturbed by other work. */
const maxWait = Number(env.LEDGER_BENCH_MAX_WAIT ?? 0.05);
/** A saturated visit during which the gateway's main thread was idle longer than this share of the wall time was bound by its clients. */
const maxIdle = Number(env.LEDGER_BENCH_MAX_IDLE ?? 0.1);
const busyBefore = machineBusySeconds();
const started = Date.now();

async function visit(v: string, round: number): Promise<void> {
  const gw = gateways.get(v)!;
  const t = polygateTarget(path, gw.url);
  const req = t.request(false);
  if (round === 0) await runAutocannon(t.baseUrl, req, conns, warmupS); // JIT, connection pools, sqlite pages
  const cell = cells.get(v)!;
  const c0 = cpuSecondsPrecise(gw.pid);
  const m0 = cpuSecondsPrecise(gw.pid, true);
  const w0 = waitSecondsOf(gw.pid);
  const fixed = await runAutocannon(t.baseUrl, req, 8, durationS, rate);
  const waited = (waitSecondsOf(gw.pid) - w0) / Math.max(1e-9, cpuSecondsPrecise(gw.pid, true) - m0);
  cell.waits.push(waited);
  const cpuUs = ((cpuSecondsPrecise(gw.pid) - c0) / Math.max(1, fixed.count)) * 1e6;
  cell.cpuUs.push(cpuUs);
  cell.mainUs.push(((cpuSecondsPrecise(gw.pid, true) - m0) / Math.max(1, fixed.count)) * 1e6);
  cell.achieved.push(fixed.rps);
  let line = `round ${round + 1} ${v}: ${fixed.rps.toFixed(0)}/s offered ${rate}, ${cpuUs.toFixed(1)} µs CPU each, waited ${(waited * 100).toFixed(0)} % of its run time`;
  if (fixed.errors > 0) line += `, ${fixed.errors} errors`;
  if (satS > 0) {
    await sleep(200);
    const s0 = cpuSecondsPrecise(gw.pid);
    const busy0 = cpuSecondsPrecise(gw.pid, true) + waitSecondsOf(gw.pid);
    const load = coreBusyShare(LOAD_CORE);
    const t0 = performance.now();
    const sat = await runAutocannon(t.baseUrl, req, conns, satS);
    const idle =
      1 - (cpuSecondsPrecise(gw.pid, true) + waitSecondsOf(gw.pid) - busy0) / ((performance.now() - t0) / 1000);
    const loadBusy = load();
    const satCpu = ((cpuSecondsPrecise(gw.pid) - s0) / Math.max(1, sat.count)) * 1e6;
    cell.sat.push(sat.rps);
    cell.satCpuUs.push(satCpu);
    cell.satIdle.push(idle);
    cell.loadBusy.push(loadBusy);
    line += `; saturated ${sat.rps.toFixed(0)}/s, ${satCpu.toFixed(1)} µs each, main thread idle ${(idle * 100).toFixed(0)} %, load core busy ${(loadBusy * 100).toFixed(0)} %`;
    if (sat.errors > 0) line += `, ${sat.errors} errors`;
  }
  log(line);
  await sleep(200);
}

for (let round = 0; round < repeats; round++) {
  // Rotate the order, so no variant always runs first (or right after the same neighbour).
  const order = variants.map((_, i) => variants[(i + round) % variants.length]);
  for (const v of order) await visit(v, round);
}
const elapsed = (Date.now() - started) / 1000;
const busy = (machineBusySeconds() - busyBefore) / elapsed;

/** The median over undisturbed visits (all visits when none was). */
function calm(c: Cell, values: number[]): number {
  const kept = values.filter((_, i) => c.waits[i] <= maxWait);
  return median(kept.length > 0 ? kept : values);
}
const calmCount = (c: Cell): number => c.waits.filter((w) => w <= maxWait).length;
/** Saturated visits where the gateway was the bottleneck (its main thread hardly idle); empty when none was. */
const bound = (c: Cell, values: number[]): number[] => values.filter((_, i) => c.satIdle[i] <= maxIdle);

// Each variant against the `off` of its own tree.
const offOf = (v: string): Cell =>
  cells.get(v.startsWith('before:') && cells.has('before:off') ? 'before:off' : 'off')!;
const isOff = (v: string): boolean => v === 'off' || v === 'before:off';
const pct = (v: number): string => `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(1)} %`;
const lines = [
  `## Ledger and traces vs neither — ${path.name}`,
  '',
  `${repeats} interleaved rounds; per visit ${durationS} s at ${rate} req/s offered (8 connections, open loop) for CPU per request, then ${satS} s at ${conns} connections (closed loop) for the saturated rate. Pinning: ${pinning}; the machine was busy ${busy.toFixed(2)} of 2 cores on average during the run (all processes). OTLP exports received: ${sink.exports()}.`,
  '',
  `CPU medians are over the undisturbed visits (the gateway's main thread waited for its core less than ${maxWait * 100} % of the time it ran; LEDGER_BENCH_MAX_WAIT), over all visits of a variant that had none. Saturated medians are over the visits where the gateway was the bottleneck (its main thread idle less than ${maxIdle * 100} % of the wall time; LEDGER_BENCH_MAX_IDLE), "–" when none was: otherwise it waited for the load core (load generator and mock), and the rate measured that core.`,
  '',
  '| variant | CPU µs / request (median) | added µs | req/s change from CPU (1 − off/on) | main thread µs / request | added µs, main thread | saturated req/s (median, gateway-bound visits) | req/s change, measured | saturated CPU µs / request | gateway-bound saturated visits | main thread idle at saturation, each round | undisturbed visits | CPU µs / request, each round |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|',
  ...variants.map((v) => {
    const c = cells.get(v)!;
    const off = offOf(v);
    const cpuOff = calm(off, off.cpuUs);
    const satOffs = bound(off, off.sat);
    const satOff = satOffs.length > 0 ? median(satOffs) : Number.NaN;
    const mainOff = calm(off, off.mainUs);
    const cpu = calm(c, c.cpuUs);
    const sats = bound(c, c.sat);
    const sat = sats.length > 0 ? median(sats) : Number.NaN;
    const satCpu = bound(c, c.satCpuUs);
    const derived = isOff(v) ? '–' : pct(cpuOff / cpu - 1);
    const measured = isOff(v) || !(sat > 0) || !(satOff > 0) ? '–' : pct(sat / satOff - 1);
    const main = calm(c, c.mainUs);
    return `| ${v} | ${cpu.toFixed(1)} | ${isOff(v) ? '–' : (cpu - cpuOff).toFixed(1)} | ${derived} | ${main.toFixed(1)} | ${isOff(v) ? '–' : (main - mainOff).toFixed(1)} | ${sat > 0 ? sat.toFixed(0) : '–'} | ${measured} | ${satCpu.length > 0 ? median(satCpu).toFixed(1) : '–'} | ${sats.length} of ${c.sat.length} | ${c.satIdle.map((x) => `${(x * 100).toFixed(0)} %`).join(' ')} | ${calmCount(c)} of ${c.waits.length} | ${c.cpuUs.map((x) => x.toFixed(0)).join(' ')} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
await Promise.all([...gateways.values()].map((g) => g.stop()).concat(mock.stop()));
await sink.close();
if (profileDir) {
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (file)
    process.stdout.write(
      `\n${renderProfile(summarizeProfile(join(profileDir, file), Number(env.LEDGER_BENCH_PROFILE_TOP ?? 40))).join('\n')}\n(profile: ${join(profileDir, file)})\n`,
    );
}
