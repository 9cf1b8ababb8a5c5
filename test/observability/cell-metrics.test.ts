// The cell metrics (src/infra/metrics/cell-metrics.ts) must expose exactly what prom-client's own
// classes expose for the same updates: dashboards and alerts read the text, not the class.
import t from 'tap';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from '../../src/infra/metrics/cell-metrics.ts';

const labelNames = ['family', 'provider', 'outcome'] as const;
const updates: { labels: { family: string; provider?: string; outcome: string }; value: number }[] = [
  { labels: { family: 'messages', provider: 'openai', outcome: 'ok' }, value: 0.0004 },
  { labels: { family: 'messages', provider: 'openai', outcome: 'ok' }, value: 0.003 },
  { labels: { family: 'messages', provider: 'openai', outcome: 'ok' }, value: 0.05 },
  { labels: { family: 'chat', provider: 'anthropic', outcome: 'http_500' }, value: 7 },
  // A value past the last bucket counts only in +Inf; a label left out is left out of the text.
  { labels: { family: 'chat', outcome: 'ok' }, value: 120 },
  { labels: { family: 'gemini', provider: 'a"b\\c', outcome: 'ok' }, value: 0.01 },
];
const buckets = [0.001, 0.005, 0.01, 0.1, 1, 10];

t.test('a histogram exposes the same text as prom-client', async (t) => {
  const ours = new Registry();
  const theirs = new Registry();
  const h = new CellHistogram({ name: 'x_seconds', help: 'help text', labelNames, buckets, registers: [ours] });
  const p = new Histogram({ name: 'x_seconds', help: 'help text', labelNames, buckets, registers: [theirs] });
  for (const u of updates) {
    h.observe(u.labels, u.value);
    p.observe(u.labels, u.value);
  }
  t.equal(await ours.metrics(), await theirs.metrics());
  h.observe(updates[0].labels, Number.NaN);
  t.equal(await ours.metrics(), await theirs.metrics(), 'a value that is not a number is not counted');
});

t.test('a counter and a gauge expose the same text as prom-client', async (t) => {
  const ours = new Registry();
  const theirs = new Registry();
  const c = new CellCounter({ name: 'y_total', help: 'h', labelNames, registers: [ours] });
  const pc = new Counter({ name: 'y_total', help: 'h', labelNames, registers: [theirs] });
  const g = new CellCounter({ name: 'z', help: 'g', labelNames: ['family'], type: 'gauge', registers: [ours] });
  const pg = new Gauge({ name: 'z', help: 'g', labelNames: ['family'], registers: [theirs] });
  for (const u of updates) {
    c.inc(u.labels);
    pc.inc(u.labels);
    c.inc(u.labels, 2.5);
    pc.inc(u.labels, 2.5);
  }
  // Primed at zero, then up and down.
  g.inc({ family: 'messages' }, 0);
  pg.inc({ family: 'messages' }, 0);
  g.inc({ family: 'chat' });
  pg.inc({ family: 'chat' });
  g.inc({ family: 'chat' });
  pg.inc({ family: 'chat' });
  g.dec({ family: 'chat' });
  pg.dec({ family: 'chat' });
  t.equal(await ours.metrics(), await theirs.metrics());
  t.match(await ours.metrics(), /y_total\{family="messages",provider="openai",outcome="ok"\} 10\.5/);
  ours.resetMetrics();
  theirs.resetMetrics();
  t.equal(await ours.metrics(), await theirs.metrics(), 'a reset empties both alike');
});

t.test('label sets are found by value, whatever the object', async (t) => {
  const r = new Registry();
  const c = new CellCounter({ name: 'w_total', help: 'h', labelNames, registers: [r] });
  for (let i = 0; i < 1000; i++) c.inc({ outcome: 'ok', family: 'messages', provider: 'openai' });
  const text = await r.metrics();
  t.equal(text.match(/^w_total\{/gm)?.length, 1, 'one series for one label set');
  t.match(text, /w_total\{family="messages",provider="openai",outcome="ok"\} 1000/);
});
