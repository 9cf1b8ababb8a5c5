// `node bench/gc-mode.ts`: which GC mode each fresh process falls into under translated JSON load
// (issue #28, bench/RESULTS.md "Session 11: GC mode"). With V8's allocation-site pretenuring a
// gateway process fell at random into a "bad" mode (every scavenge promoting ~7 MB instead of
// ~0.3 MB); the mode is decided once per process, so it is counted over many processes, not
// averaged over rounds. Each process: started fresh under `--trace-gc`, GC_MODE_SECONDS of warm-up
// and as many measured at 32 connections, then its scavenges of the measured seconds summarized.
// The targets alternate process by process: this tree's polygate, BENCH_BEFORE's (when set) and
// the framework floor. MB promoted per scavenge is a count, steady on a busy machine; scavenge
// milliseconds are wall-clock.
//   GC_MODE_PROCESSES (6 per target)  GC_MODE_SECONDS (4)  GC_MODE_NODE_ARGS (node flags for every process)
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runAutocannon } from './load-autocannon.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import {
  beforeDir,
  GATEWAY_CORE,
  LOAD_CORE,
  memoryOf,
  pinSelf,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
  type Proc,
} from './processes.ts';
import { median } from './stats.ts';
import { frameworkFloorTarget, polygateTarget, type Target } from './targets.ts';

const processes = Number(process.env.GC_MODE_PROCESSES ?? 6);
const seconds = Number(process.env.GC_MODE_SECONDS ?? 4);
const nodeArgs = ['--trace-gc', ...(process.env.GC_MODE_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
/** Far apart in practice: 0.04–0.6 MB in the good mode, 4–9 MB in the bad one. */
const badAboveMb = 2;

type Gc = { t: number; scavenge: boolean; afterMb: number; ms: number };
type Run = { promotedMb: number; scavengeMs: number; gcMsPerS: number; rssMb: number; heapMb: number };

/** The `--trace-gc` lines of a process's stdout (its request log interleaved). */
function gcLines(text: string): Gc[] {
  const out: Gc[] = [];
  for (const l of text.split('\n')) {
    const m =
      /(\d+) ms: (Scavenge|Mark-Compact)\S* [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB.*?([\d.]+) \/ [\d.]+ ms/.exec(
        l,
      );
    if (m) out.push({ t: Number(m[1]), scavenge: m[2] === 'Scavenge', afterMb: Number(m[3]), ms: Number(m[4]) });
  }
  return out;
}

/** MB promoted per scavenge: the heap's growth across each scavenge that follows a scavenge. */
function summarize(gcs: Gc[], pid: number): Run {
  let promoted = 0;
  let pairs = 0;
  for (let i = 1; i < gcs.length; i++)
    if (gcs[i].scavenge && gcs[i - 1].scavenge) {
      promoted += gcs[i].afterMb - gcs[i - 1].afterMb;
      pairs++;
    }
  const scavenges = gcs.filter((g) => g.scavenge);
  const span = gcs.length > 1 ? (gcs[gcs.length - 1].t - gcs[0].t) / 1000 : seconds;
  return {
    promotedMb: pairs ? promoted / pairs : Number.NaN,
    scavengeMs: scavenges.reduce((s, g) => s + g.ms, 0) / scavenges.length,
    gcMsPerS: gcs.reduce((s, g) => s + g.ms, 0) / span,
    rssMb: (memoryOf(pid)?.rss ?? Number.NaN) / 1e6,
    heapMb: gcs[gcs.length - 1]?.afterMb ?? Number.NaN,
  };
}

type Kind = { name: string; start: (mockUrl: string, log: string) => Promise<{ proc: Proc; target: Target }> };
const path = benchPaths.find((p) => p.name === 'E → openai-chat (translate)')!;
const gateway = (name: string, dir: string): Kind => ({
  name,
  start: async (mockUrl) => {
    const proc = await startPolygate(polygateConfig(mockUrl), { dir, nodeArgs, logToFile: true });
    return { proc, target: polygateTarget(path, proc.url) };
  },
});
const kinds: Kind[] = [
  gateway('polygate', repoRoot),
  ...(beforeDir ? [gateway('polygate (before)', beforeDir)] : []),
  {
    name: 'framework floor',
    start: async (mockUrl, log) => {
      const proc = await startNodeProcess('framework floor', join(repoRoot, 'bench/framework-floor.ts'), {
        core: GATEWAY_CORE,
        nodeArgs,
        stdoutFile: log,
        args: (port) => ['--port', String(port), '--target', mockUrl],
      });
      return { proc, target: frameworkFloorTarget('messages', proc.url) };
    },
  },
];

pinSelf(LOAD_CORE);
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const runs = new Map<string, Run[]>(kinds.map((k) => [k.name, []]));
try {
  for (let i = 0; i < processes; i++)
    for (const k of kinds) {
      const floorLog = join(process.env.TMPDIR ?? '/tmp', `gc-mode-floor-${process.pid}-${i}.log`);
      const { proc, target } = await k.start(mock.url, floorLog);
      const log = (proc as Proc & { logFile?: string }).logFile ?? floorLog;
      try {
        const req = target.request(false);
        await runAutocannon(target.baseUrl, req, 32, seconds);
        const mark = readFileSync(log, 'utf8').length;
        await runAutocannon(target.baseUrl, req, 32, seconds);
        const run = summarize(gcLines(readFileSync(log, 'utf8').slice(mark)), proc.pid);
        runs.get(k.name)!.push(run);
        process.stderr.write(
          `gc-mode: ${k.name} #${i + 1}: ${run.promotedMb.toFixed(2)} MB promoted a scavenge, ${run.scavengeMs.toFixed(1)} ms\n`,
        );
      } finally {
        await proc.stop();
        rmSync(floorLog, { force: true });
      }
    }
} finally {
  await mock.stop();
}

const f = (v: number[], digits = 1): string => median(v).toFixed(digits);
const lines = [
  `GC mode per process, translated JSON at 32 connections (\`node bench/gc-mode.ts\`): ${processes} fresh processes per target, ${seconds} s warm-up and ${seconds} s measured each, \`--trace-gc\`${nodeArgs.length > 1 ? ` ${nodeArgs.slice(1).join(' ')}` : ''}; "bad" = more than ${badAboveMb} MB promoted a scavenge. Medians over the processes of each mode.`,
  '',
  '| target | bad processes | MB promoted / scavenge (good · bad) | scavenge ms (good · bad) | GC ms / s (good · bad) | RSS MB (good · bad) | heap after GC MB (good · bad) |',
  '|---|---:|---|---|---|---|---|',
];
for (const [name, rs] of runs) {
  const bad = rs.filter((r) => r.promotedMb > badAboveMb);
  const good = rs.filter((r) => !(r.promotedMb > badAboveMb));
  const both = (pick: (r: Run) => number, digits = 1): string =>
    `${good.length ? f(good.map(pick), digits) : '–'} · ${bad.length ? f(bad.map(pick), digits) : '–'}`;
  lines.push(
    `| ${name} | ${bad.length} of ${rs.length} | ${both((r) => r.promotedMb, 2)} | ${both((r) => r.scavengeMs)} | ${both((r) => r.gcMsPerS, 0)} | ${both((r) => r.rssMb, 0)} | ${both((r) => r.heapMb, 0)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
