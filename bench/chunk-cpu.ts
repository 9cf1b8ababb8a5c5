// `node bench/chunk-cpu.ts`: CPU time per streamed chunk, per path, in pairs (issue #28). The
// gateway's CPU (the scheduler's own ns accounting, all threads) over a fixed paced load, so a
// shared machine's waits for a core do not count: translated (E → openai-chat), relayed
// (E → anthropic pass-through) and the framework floor's relay, side by side in every round.
//
// Per chunk = (CPU per stream of long streams − CPU per stream of short streams) ÷ the chunks
// between them, so the per-request cost (auth, routing, the ledger) is not counted in it; the
// short streams' CPU per stream is reported beside it. Two worlds (a mock with CHUNK_CPU_LONG
// chunks and one with CHUNK_CPU_SHORT, each with its own gateways, all on the gateway core), the
// targets visited in alternating order every round so drift hits all alike.
//
//   CHUNK_CPU_ROUNDS (5)  CHUNK_CPU_SECONDS (3)  CHUNK_CPU_CONNECTIONS (32)  CHUNK_CPU_INTERVAL_MS (2)
//   CHUNK_CPU_LONG (200)  CHUNK_CPU_SHORT (10)   BENCH_BEFORE=<older checkout>: its polygate too
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runStreams } from './load-streams.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import {
  beforeDir,
  cpuSecondsPrecise,
  GATEWAY_CORE,
  LOAD_CORE,
  pinSelf,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
  type Proc,
} from './processes.ts';
import { median } from './stats.ts';
import { frameworkFloorTarget, polygateTarget, type Target } from './targets.ts';

export type ChunkCpuOptions = {
  rounds: number;
  seconds: number;
  connections: number;
  intervalMs: number;
  long: number;
  short: number;
  before?: string;
};

export type ChunkCpuRow = {
  name: string;
  /** µs of gateway CPU per chunk, median over rounds (and each round's figure). */
  perChunkUs: number;
  rounds: number[];
  /** µs of gateway CPU per short stream (the per-request part), median. */
  perStreamUs: number;
};

const env = process.env;
export const chunkCpuDefaults: ChunkCpuOptions = {
  rounds: Number(env.CHUNK_CPU_ROUNDS ?? 5),
  seconds: Number(env.CHUNK_CPU_SECONDS ?? 3),
  connections: Number(env.CHUNK_CPU_CONNECTIONS ?? 32),
  intervalMs: Number(env.CHUNK_CPU_INTERVAL_MS ?? 2),
  long: Number(env.CHUNK_CPU_LONG ?? 200),
  short: Number(env.CHUNK_CPU_SHORT ?? 10),
  before: beforeDir,
};

export type Entry = { name: string; target: Target; pid: number };
export type World = { chunks: number; procs: Proc[]; entries: Entry[] };

const translated = benchPaths.find((p) => p.name === 'E → openai-chat (translate)')!;
const relayed = benchPaths.find((p) => p.name === 'E → anthropic (pass-through)')!;

/** A mock streaming `chunks` chunks, the floor, polygate (and BENCH_BEFORE's) on it, each a target per path. */
export async function world(chunks: number, o: ChunkCpuOptions): Promise<World> {
  const mock = await startMockProcess({ chunks, intervalMs: o.intervalMs });
  const procs: Proc[] = [mock];
  const entries: Entry[] = [];
  const floor = await startNodeProcess('framework floor', join(repoRoot, 'bench/framework-floor.ts'), {
    core: GATEWAY_CORE,
    args: (port) => ['--port', String(port), '--target', mock.url],
  });
  procs.push(floor);
  entries.push({
    name: 'framework floor (relay)',
    target: frameworkFloorTarget('messages', floor.url),
    pid: floor.pid,
  });
  const gateways: [string, string | undefined][] = [['polygate', undefined]];
  if (o.before) gateways.push(['polygate (before)', o.before]);
  for (const [label, dir] of gateways) {
    const gw = await startPolygate(polygateConfig(mock.url), { dir, name: label, logToFile: true });
    procs.push(gw);
    entries.push({ name: `${label} · translated`, target: polygateTarget(translated, gw.url), pid: gw.pid });
    entries.push({ name: `${label} · relayed`, target: polygateTarget(relayed, gw.url), pid: gw.pid });
  }
  return { chunks, procs, entries };
}

/** Gateway CPU µs per completed stream of one measurement. */
export async function measure(e: Entry, o: ChunkCpuOptions): Promise<number> {
  const req = e.target.request(true);
  const c0 = cpuSecondsPrecise(e.pid);
  const r = await runStreams(e.target.baseUrl, req, o.connections, o.seconds, e.target.endMarker);
  const c1 = cpuSecondsPrecise(e.pid);
  if (r.count === 0) throw new Error(`${e.name}: no stream completed (${r.errors} errors, ${r.incomplete} incomplete)`);
  return ((c1 - c0) * 1e6) / (r.count + r.incomplete + r.errors);
}

export async function runChunkCpu(partial: Partial<ChunkCpuOptions> = {}): Promise<ChunkCpuRow[]> {
  const o = { ...chunkCpuDefaults, ...partial };
  const worlds = [await world(o.long, o), await world(o.short, o)];
  try {
    const names = worlds[0].entries.map((e) => e.name);
    const perStream = new Map<string, { long: number[]; short: number[] }>(
      names.map((n) => [n, { long: [], short: [] }]),
    );
    // Warm-up: every target once, not counted.
    for (const w of worlds) for (const e of w.entries) await measure(e, { ...o, seconds: 1 });
    for (let r = 0; r < o.rounds; r++) {
      const order = r % 2 === 0 ? names : [...names].reverse();
      for (const n of order)
        for (const w of r % 2 === 0 ? worlds : [...worlds].reverse()) {
          const e = w.entries.find((x) => x.name === n)!;
          const us = await measure(e, o);
          perStream.get(n)![w.chunks === o.long ? 'long' : 'short'].push(us);
        }
      process.stderr.write(`chunk-cpu: round ${r + 1}/${o.rounds} done\n`);
    }
    return names.map((name) => {
      const s = perStream.get(name)!;
      const rounds = s.long.map((l, i) => (l - s.short[i]) / (o.long - o.short));
      return { name, perChunkUs: median(rounds), rounds, perStreamUs: median(s.short) };
    });
  } finally {
    for (const w of worlds) await stopWorld(w);
  }
}

export async function stopWorld(w: World): Promise<void> {
  for (const p of w.procs) {
    await p.stop();
    const work = (p as Proc & { workDir?: string }).workDir;
    if (work) rmSync(work, { recursive: true, force: true });
  }
}

export function renderChunkCpu(rows: ChunkCpuRow[], o: ChunkCpuOptions = chunkCpuDefaults): string[] {
  const floor = rows.find((r) => r.name.startsWith('framework floor'))?.perChunkUs ?? Number.NaN;
  return [
    `CPU per streamed chunk (\`node bench/chunk-cpu.ts\`): ${o.connections} streams at a time, a chunk every ${o.intervalMs} ms, ` +
      `(CPU per stream of ${o.long}-chunk streams − of ${o.short}-chunk streams) ÷ ${o.long - o.short}, ` +
      `gateway CPU from the scheduler (all threads), ${o.rounds} rounds of ${o.seconds} s, targets alternating.`,
    '',
    '| gateway · path | µs CPU / chunk (median) | ÷ floor | each round | µs CPU / short stream |',
    '|---|---:|---:|---|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.perChunkUs.toFixed(2)} | ${(r.perChunkUs / floor).toFixed(2)}× | ${r.rounds.map((x) => x.toFixed(1)).join(' ')} | ${Math.round(r.perStreamUs)} |`,
    ),
  ];
}

if (import.meta.main) {
  pinSelf(LOAD_CORE);
  const rows = await runChunkCpu();
  process.stdout.write(`${renderChunkCpu(rows).join('\n')}\n`);
}
