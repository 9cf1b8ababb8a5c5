// Preload for bench/ledger-gap-probe.ts (node --import): the event-loop delay histogram, written and reset on SIGUSR2.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { renameSync, writeFileSync } from 'node:fs';
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
let elu = performance.eventLoopUtilization();
process.on('SIGUSR2', () => {
  const e = performance.eventLoopUtilization(elu);
  elu = performance.eventLoopUtilization();
  // Written whole, then renamed: the probe polls for the file and must never read half of it.
  const file = `/tmp/lg-eld-${process.pid}.json`;
  writeFileSync(`${file}.part`, JSON.stringify({ mean: h.mean / 1e6, p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, count: h.count, elu: e.utilization, idleMs: e.idle, activeMs: e.active }));
  renameSync(`${file}.part`, file);
  h.reset();
});
