// Preload for bench/ledger-gap-probe.ts (node --import): the event-loop delay histogram, written and reset on SIGUSR2.
import { monitorEventLoopDelay, performance, PerformanceObserver, constants } from 'node:perf_hooks';
import { renameSync, writeFileSync } from 'node:fs';
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
let elu = performance.eventLoopUtilization();
// Time in garbage collection (main thread pauses), minor (scavenge) and the rest, since the last report.
let gc = { minorMs: 0, majorMs: 0, minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.minorMs += e.duration;
      gc.minor++;
    } else {
      gc.majorMs += e.duration;
      gc.major++;
    }
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  const e = performance.eventLoopUtilization(elu);
  elu = performance.eventLoopUtilization();
  // Written whole, then renamed: the probe polls for the file and must never read half of it.
  const file = `/tmp/lg-eld-${process.pid}.json`;
  writeFileSync(
    `${file}.part`,
    JSON.stringify({
      mean: h.mean / 1e6,
      p50: h.percentile(50) / 1e6,
      p99: h.percentile(99) / 1e6,
      max: h.max / 1e6,
      count: h.count,
      elu: e.utilization,
      idleMs: e.idle,
      activeMs: e.active,
      ...gc,
    }),
  );
  gc = { minorMs: 0, majorMs: 0, minor: 0, major: 0 };
  renameSync(`${file}.part`, file);
  h.reset();
});
