// `npm run bench:ledger`: what the usage ledger and traces cost on the translated path
// (Messages → OpenAI Chat Completions, the mock upstream of bench/). The same polygate config
// twice, once with the ledger (sqlite, prices, a budget on the key, so every request is priced,
// checked and recorded) and OTLP traces on, once with both off; requests per second (and streams
// per second) at the same load, the runs interleaved so a slow moment of the machine hits both.
//
// Environment: LEDGER_BENCH_DURATION (s per run, 3), LEDGER_BENCH_REPEATS (5),
// LEDGER_BENCH_CONNECTIONS (32), BENCH_MODES=json,stream, LEDGER_BENCH_ON=both|ledger|tracing (what
// the "on" gateway turns on), LEDGER_BENCH_SAMPLE (tracing.sample_ratio, 1), LEDGER_BENCH_PROFILE=1
// (the "on" gateway runs with --cpu-prof; its summary is printed at the end, as bench/profile.ts does).
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runAutocannon } from './load-autocannon.ts';
import { runStreams } from './load-streams.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import { cpuSecondsOf, LOAD_CORE, machineBusySeconds, pinning, pinSelf, startMockProcess, startPolygate, type Proc } from './processes.ts';
import { median, sleep } from './stats.ts';
import { renderProfile, summarizeProfile } from './summarize-profile.ts';
import { polygateTarget } from './targets.ts';

const env = process.env;
const durationS = Number(env.LEDGER_BENCH_DURATION ?? 3);
const repeats = Number(env.LEDGER_BENCH_REPEATS ?? 5);
const conns = Number(env.LEDGER_BENCH_CONNECTIONS ?? 32);
const modes = (env.BENCH_MODES ?? 'json,stream').split(',').filter((m): m is 'json' | 'stream' => m === 'json' || m === 'stream');
const log = (s: string): void => void process.stderr.write(`${s}\n`);

pinSelf(LOAD_CORE);
const path = benchPaths.find((p) => p.inbound === 'messages' && p.upstream === 'openai-chat')!;

// An OTLP/HTTP sink: takes every export and answers 200, as a collector would.
let exports = 0;
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((ok) => sink.listen(0, '127.0.0.1', ok));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;

const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const base = (dir: string): Record<string, unknown> => ({ ...polygateConfig(mock.url), storage: { driver: 'sqlite', path: join(dir, 'polygate.db') } });
const models = Object.keys(polygateConfig(mock.url).models as object);
const configs = {
  off: { ...base(mkdtempSync(join(tmpdir(), 'ledger-bench-off-'))), usage: { ledger: false } },
  on: {
    ...base(mkdtempSync(join(tmpdir(), 'ledger-bench-on-'))),
    usage: {
      ledger: true,
      prices: { models: Object.fromEntries(models.map((m) => [m, { input: 3, output: 15 }])) },
      budgets: { bench: { usd_per_day: 1_000_000 } },
    },
    ...(env.LEDGER_BENCH_ON === 'ledger' ? {} : { tracing: { endpoint: sinkUrl, sample_ratio: Number(env.LEDGER_BENCH_SAMPLE ?? 1) } }),
  },
};
if (env.LEDGER_BENCH_ON === 'tracing') configs.on.usage = { ledger: false } as typeof configs.on.usage;
const profileDir = env.LEDGER_BENCH_PROFILE ? mkdtempSync(join(tmpdir(), 'ledger-bench-prof-')) : undefined;
const gateways: Record<'off' | 'on', Proc> = {
  off: await startPolygate(configs.off),
  on: await startPolygate(configs.on, profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
};

// Rates swing with whatever else the machine runs; the gateway's own CPU time per request does
// not, so it is reported beside them (on a core of its own, 1 / CPU per request is the ceiling).
type Row = { mode: string; off: number[]; on: number[]; cpuOff: number[]; cpuOn: number[] };
const rows: Row[] = [];
const busyBefore = machineBusySeconds();
const started = Date.now();
for (const mode of modes) {
  const row: Row = { mode, off: [], on: [], cpuOff: [], cpuOn: [] };
  for (let i = 0; i < repeats; i++) {
    // Alternate which goes first, so neither always runs on a warmer (or busier) machine.
    const order: ('off' | 'on')[] = i % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const which of order) {
      const t = polygateTarget(path, gateways[which].url);
      const req = t.request(mode === 'stream');
      if (i === 0) await (mode === 'json' ? runAutocannon(t.baseUrl, req, conns, 1) : runStreams(t.baseUrl, req, conns, 1, t.endMarker));
      const cpu0 = cpuSecondsOf(gateways[which].pid);
      const r = mode === 'json' ? await runAutocannon(t.baseUrl, req, conns, durationS) : await runStreams(t.baseUrl, req, conns, durationS, t.endMarker);
      const rate = 'rps' in r ? r.rps : r.sps;
      const cpuUs = ((cpuSecondsOf(gateways[which].pid) - cpu0) / Math.max(1, r.count)) * 1e6;
      row[which === 'off' ? 'cpuOff' : 'cpuOn'].push(cpuUs);
      if (r.errors > 0) log(`  ${which} ${mode}: ${r.errors} errors`);
      row[which].push(rate);
      log(`${mode} repeat ${i + 1} ${which}: ${rate.toFixed(0)}/s, ${cpuUs.toFixed(0)} µs CPU each`);
      await sleep(200);
    }
  }
  rows.push(row);
}
const elapsed = (Date.now() - started) / 1000;
const others = (machineBusySeconds() - busyBefore) / elapsed;

const lines = [
  `## ${env.LEDGER_BENCH_ON ?? 'both'} on vs off (tracing.sample_ratio ${env.LEDGER_BENCH_SAMPLE ?? 1}) — ${path.name}, ${conns} connections`,
  '',
  `${repeats} interleaved runs of ${durationS} s per cell; pinning: ${pinning}; the machine was busy ${others.toFixed(2)} cores on average during the run (all processes).`,
  '',
  '| mode | off (median/s) | on (median/s) | change | CPU µs each, off | CPU µs each, on | ceiling change (1 / CPU) | runs off | runs on |',
  '|---|---:|---:|---:|---:|---:|---:|---|---|',
  ...rows.map((r) => {
    const off = median(r.off);
    const on = median(r.on);
    const cOff = median(r.cpuOff);
    const cOn = median(r.cpuOn);
    const pct = (v: number): string => `${(v * 100).toFixed(1)} %`;
    return `| ${r.mode === 'json' ? 'requests' : 'streams'} | ${off.toFixed(0)} | ${on.toFixed(0)} | ${pct((on - off) / off)} | ${cOff.toFixed(0)} | ${cOn.toFixed(0)} | ${pct(cOff / cOn - 1)} | ${r.off.map((v) => v.toFixed(0)).join(' ')} | ${r.on.map((v) => v.toFixed(0)).join(' ')} |`;
  }),
  '',
  `OTLP exports received: ${exports}.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
await Promise.all([gateways.off.stop(), gateways.on.stop(), mock.stop()]);
sink.close();
if (profileDir) {
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (file) process.stdout.write(`\n${renderProfile(summarizeProfile(join(profileDir, file), Number(env.LEDGER_BENCH_PROFILE_TOP ?? 40))).join('\n')}\n(profile: ${join(profileDir, file)})\n`);
}
