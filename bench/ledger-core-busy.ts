import { readFileSync } from 'node:fs';

/** [busy, total] jiffies of one core since boot, from /proc/stat (idle and iowait are not busy). */
function coreTicks(core: number): [number, number] {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${core} `));
  if (!line) return [0, 0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return [total - v[3] - v[4], total];
}

/**
 * How busy one core is from now until the returned function is called (0..1, all processes): the
 * load core's, to tell a gateway waiting for its clients from one that is the bottleneck
 * (bench/ledger-bench.ts, bench/ledger-gap-probe.ts).
 */
export function coreBusyShare(core: number): () => number {
  const [b0, t0] = coreTicks(core);
  return () => {
    const [b1, t1] = coreTicks(core);
    return t1 > t0 ? (b1 - b0) / (t1 - t0) : 0;
  };
}
