// `node bench/stream-start-cpu.ts`: CPU time per stream start, in pairs (issue #28). Streams of
// STREAM_START_CHUNKS (1) chunk, so nearly all of a stream's CPU is its start and end (accept,
// auth, routing, the upstream call, headers, the ledger, the access log): the part of the soak's
// ramp (500 starts a second) that competes with the open streams' chunks for the core. The same
// targets, gateway-CPU accounting and alternation as bench/chunk-cpu.ts; BENCH_BEFORE=<older
// checkout> adds its polygate, and each round's after ÷ before is printed (a pair).
//
//   STREAM_START_ROUNDS (6)  STREAM_START_SECONDS (3)  STREAM_START_CONNECTIONS (32)  STREAM_START_CHUNKS (1)
import { chunkCpuDefaults, measure, stopWorld, world, type ChunkCpuOptions } from './chunk-cpu.ts';
import { LOAD_CORE, pinSelf } from './processes.ts';
import { median } from './stats.ts';

const env = process.env;
const o: ChunkCpuOptions = {
  ...chunkCpuDefaults,
  rounds: Number(env.STREAM_START_ROUNDS ?? 6),
  seconds: Number(env.STREAM_START_SECONDS ?? 3),
  connections: Number(env.STREAM_START_CONNECTIONS ?? 32),
};
const chunks = Number(env.STREAM_START_CHUNKS ?? 1);

pinSelf(LOAD_CORE);
const w = await world(chunks, o);
const us = new Map(w.entries.map((e) => [e.name, [] as number[]]));
try {
  for (const e of w.entries) await measure(e, { ...o, seconds: 1 });
  for (let r = 0; r < o.rounds; r++) {
    const order = r % 2 === 0 ? w.entries : [...w.entries].reverse();
    for (const e of order) us.get(e.name)!.push(await measure(e, o));
    process.stderr.write(`stream-start-cpu: round ${r + 1}/${o.rounds} done\n`);
  }
} finally {
  await stopWorld(w);
}
const floor = median(us.get('framework floor (relay)')!);
const lines = [
  `CPU per stream start (\`node bench/stream-start-cpu.ts\`): streams of ${chunks} chunk(s), ${o.connections} at a time, ` +
    `gateway CPU from the scheduler (all threads) per stream, ${o.rounds} rounds of ${o.seconds} s, targets alternating.`,
  '',
  '| gateway · path | µs CPU / stream (median) | ÷ floor | each round | after ÷ before, each round |',
  '|---|---:|---:|---|---|',
];
for (const [name, xs] of us) {
  const pair = us.get(name.replace(/^polygate ·/, 'polygate (before) ·'));
  const ratios = name.startsWith('polygate ·') && pair ? xs.map((x, i) => (x / pair[i]).toFixed(2)).join(' ') : '';
  lines.push(
    `| ${name} | ${median(xs).toFixed(0)} | ${(median(xs) / floor).toFixed(2)}× | ${xs.map((x) => x.toFixed(0)).join(' ')} | ${ratios} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
