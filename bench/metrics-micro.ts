// One metric update, prom-client's own classes against the cell metrics of src/infra/metrics/cell-metrics.ts, in process.
//   node bench/metrics-micro.ts
import { Counter, Histogram, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from '../src/infra/metrics/cell-metrics.ts';

const labelNames = ['family', 'inbound_format', 'upstream_format', 'provider', 'mode', 'outcome'] as const;
const labels = {
  family: 'messages',
  inbound_format: 'anthropic-messages',
  upstream_format: 'openai-chat',
  provider: 'openai',
  mode: 'translate',
  outcome: 'ok',
};
const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const registers = [new Registry()];
const cases: [string, () => void][] = [
  [
    'prom-client histogram observe',
    (
      (h) => () =>
        h.observe({ ...labels }, 0.003)
    )(new Histogram({ name: 'a', help: 'a', labelNames, buckets, registers })),
  ],
  [
    'cell histogram observe',
    (
      (h) => () =>
        h.observe({ ...labels }, 0.003)
    )(new CellHistogram({ name: 'b', help: 'b', labelNames, buckets, registers })),
  ],
  [
    'prom-client counter inc',
    (
      (c) => () =>
        c.inc({ ...labels })
    )(new Counter({ name: 'c', help: 'c', labelNames, registers })),
  ],
  [
    'cell counter inc',
    (
      (c) => () =>
        c.inc({ ...labels })
    )(new CellCounter({ name: 'd', help: 'd', labelNames, registers })),
  ],
];
const n = 1_000_000;
for (const [name, update] of cases) {
  for (let i = 0; i < 100_000; i++) update();
  const t = performance.now();
  for (let i = 0; i < n; i++) update();
  process.stdout.write(`${name}: ${(((performance.now() - t) * 1000) / n).toFixed(3)} µs\n`);
}
