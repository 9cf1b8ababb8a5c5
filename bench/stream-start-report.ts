// `node bench/stream-start-report.ts FILE`: where a stream's first byte waited, from the lines
// bench/stream-start-probe.ts wrote during `BENCH_SOAK_PROBE=FILE npm run bench:soak` (issue #28).
// Per polygate round: percentiles of each phase's share of the start, then the same over time (500 ms
// windows by arrival) beside the event loop's utilization and delay in that window.
import { readFileSync } from 'node:fs';

type Line = Record<string, number | string | boolean>;
const lines = readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);
const rounds = lines.filter((l) => l.round !== undefined);
const loops = lines.filter((l) => l.loop);
const reqs = lines.filter((l) => l.request !== undefined && l.upCreate !== undefined) as Record<string, number>[];

const steps: [string, string, string][] = [
  ['accept→request', 'accepted', 'request'],
  ['request→upstream call', 'request', 'upCreate'],
  ['call→headers sent', 'upCreate', 'upSent'],
  ['sent→upstream headers', 'upSent', 'upHeaders'],
  ['headers→first chunk', 'upHeaders', 'upFirstChunk'],
  ['first chunk→writeHead', 'upFirstChunk', 'head'],
  ['writeHead→first write', 'head', 'write'],
  ['accept→first write', 'accepted', 'write'],
];
const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f = (x: number): string => (Number.isNaN(x) ? '–' : x.toFixed(0));

for (const r of rounds) {
  const from = Number(r.from);
  const to = Number(r.to);
  const inRound = reqs.filter((q) => q.request >= from && q.request <= to);
  const newConns = inRound.filter((q) => q.upConnected !== undefined).length;
  console.log(`\n${r.round}: ${inRound.length} requests, ${newConns} opened a new upstream connection`);
  console.log('| phase | p50 ms | p90 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|');
  for (const [name, a, b] of steps) {
    const xs = inRound.filter((q) => q[a] !== undefined && q[b] !== undefined).map((q) => q[b] - q[a]);
    console.log(`| ${name} | ${f(pct(xs, 50))} | ${f(pct(xs, 90))} | ${f(pct(xs, 99))} | ${f(Math.max(...xs))} |`);
  }
  console.log(
    '\n| window (s from start) | arrivals | accept→first write p50 / max ms | accept→request p50 | request→upstream call p50 | loop busy | loop delay p99 / max ms |\n|---|---:|---|---:|---:|---:|---|',
  );
  for (let t = from; t < to; t += 500) {
    const w = inRound.filter((q) => q.request >= t && q.request < t + 500);
    const l = loops.filter((x) => Number(x.t) > t && Number(x.t) <= t + 500);
    const total = w.map((q) => q.write - q.accepted);
    const elu = l.reduce((a, x) => a + Number(x.elu), 0) / (l.length || 1);
    console.log(
      `| ${((t - from) / 1000).toFixed(1)} | ${w.length} | ${f(pct(total, 50))} / ${f(Math.max(...total, Number.NaN))} | ${f(
        pct(
          w.map((q) => q.request - q.accepted),
          50,
        ),
      )} | ${f(
        pct(
          w.map((q) => q.upCreate - q.request),
          50,
        ),
      )} | ${(elu * 100).toFixed(0)} % | ${f(Math.max(...l.map((x) => Number(x.p99))))} / ${f(Math.max(...l.map((x) => Number(x.max))))} |`,
    );
  }
}
