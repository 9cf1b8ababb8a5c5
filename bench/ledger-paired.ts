// `node bench/ledger-paired.ts`: issue #18's goal measured in pairs that run at the same moment.
// `npm run bench:ledger` visits its variants one after another, and on a machine whose speed drifts
// from second to second (a shared VM: the same gateway measured 300–700 µs a request from one visit
// to the next, bench/RESULTS.md) no figure resolves 5 %. Here the variant and `off` run side by side:
// both gateways pinned to the gateway core, each offered LEDGER_PAIRED_RATE (500) req/s by its own
// open-loop load at the same time, so a slow moment slows both alike; each one's CPU per request is
// read from the scheduler over the same window, and the ratio variant / off is taken per pair.
// Medians over LEDGER_PAIRED_ROUNDS (8) pairs of LEDGER_PAIRED_DURATION (5) s each; the two swap
// places (start order) every round. With the CPU per request c of each, on one core the saturated
// rate is ~1/c, so "fewer requests per second" = 1 − c(off)/c(variant).
// LEDGER_PAIRED_VARIANTS (default `ledger,both@default`), LEDGER_PAIRED_WARMUP (s per gateway at 32 connections before the first pair, 30),
// LEDGER_PAIRED_BASE (what each variant is paired with, default `off`), LEDGER_PAIRED_BEFORE=DIR
// (another checkout: variants prefixed `before:` run from it, e.g. BASE=before:ledger VARIANTS=ledger).
import { runAutocannon } from './load-autocannon.ts';
import { ledgerVariantConfig, startOtlpSink } from './ledger-variants.ts';
import { benchPaths } from './paths.ts';
import { cpuSecondsPrecise, LOAD_CORE, pinSelf, startMockProcess, startPolygate, type Proc } from './processes.ts';
import { median } from './stats.ts';
import { polygateTarget } from './targets.ts';

const env = process.env;
const rate = Number(env.LEDGER_PAIRED_RATE ?? 500);
const durationS = Number(env.LEDGER_PAIRED_DURATION ?? 5);
const rounds = Number(env.LEDGER_PAIRED_ROUNDS ?? 8);
// 30 s: a traced gateway measured in its first minute cost 5–90 % more from pair to pair, settling as
// its code warmed (bench/RESULTS.md, 2026-11-26); 10 s was not enough.
const warmupS = Number(env.LEDGER_PAIRED_WARMUP ?? 30);
const variants = (env.LEDGER_PAIRED_VARIANTS ?? 'ledger,both@default').split(',').map((v) => v.trim());
const base = env.LEDGER_PAIRED_BASE ?? 'off';
const log = (s: string): void => void process.stderr.write(`${s}\n`);

pinSelf(LOAD_CORE);
const path = benchPaths.find((p) => p.inbound === 'messages' && p.upstream === 'openai-chat')!;
const sink = await startOtlpSink();
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const gateways = new Map<string, Proc>();
for (const v of [base, ...variants]) {
  const before = v.startsWith('before:');
  if (before && !env.LEDGER_PAIRED_BEFORE) throw new Error(`${v} needs LEDGER_PAIRED_BEFORE=DIR`);
  gateways.set(
    v,
    await startPolygate(ledgerVariantConfig(v, mock.url, sink.url), before ? { dir: env.LEDGER_PAIRED_BEFORE } : {}),
  );
}

/** One gateway's share of a pair: its load, and its CPU per request over the window. */
async function measure(gw: Proc, seconds: number): Promise<number> {
  const t = polygateTarget(path, gw.url);
  const c0 = cpuSecondsPrecise(gw.pid);
  const r = await runAutocannon(t.baseUrl, t.request(false), 8, seconds, rate);
  return ((cpuSecondsPrecise(gw.pid) - c0) / Math.max(1, r.count)) * 1e6;
}

for (const [v, gw] of gateways) {
  const t = polygateTarget(path, gw.url);
  await runAutocannon(t.baseUrl, t.request(false), 32, warmupS); // JIT, pools, sqlite pages
  log(`warmed ${v}`);
}

const lines = [
  `## Ledger and traces vs neither, measured in pairs at the same moment — ${path.name}`,
  '',
  `${rounds} pairs per variant of ${durationS} s, each gateway offered ${rate} req/s (8 connections, open loop) while the other was; both pinned to the gateway core. Ratio = CPU per request of the variant / of \`${base}\` in the same pair.`,
  '',
  `| variant | CPU µs / request, ${base} (median) | CPU µs / request, variant (median) | ratio, median | ratio, each pair | fewer req/s (1 − 1/ratio) |`,
  '|---|---:|---:|---:|---|---:|',
];
for (const v of variants) {
  const offs: number[] = [];
  const ons: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const pair = round % 2 === 0 ? [gateways.get(base)!, gateways.get(v)!] : [gateways.get(v)!, gateways.get(base)!];
    const [a, b] = await Promise.all(pair.map((gw) => measure(gw, durationS)));
    const [off, on] = round % 2 === 0 ? [a, b] : [b, a];
    offs.push(off);
    ons.push(on);
    ratios.push(on / off);
    log(
      `pair ${round + 1} ${v}: ${base} ${off.toFixed(1)} µs, ${v} ${on.toFixed(1)} µs, ratio ${(on / off).toFixed(3)}`,
    );
  }
  const r = median(ratios);
  lines.push(
    `| ${v} | ${median(offs).toFixed(1)} | ${median(ons).toFixed(1)} | ${r.toFixed(3)} | ${ratios.map((x) => x.toFixed(2)).join(' ')} | ${((1 - 1 / r) * 100).toFixed(1)} % |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
await Promise.all([...gateways.values()].map((g) => g.stop()).concat(mock.stop()));
await sink.close();
