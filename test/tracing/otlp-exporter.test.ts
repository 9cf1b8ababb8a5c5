// The span exporter (src/tracing/otlp-exporter.ts) against an OTLP/HTTP receiver on loopback:
// every span it is given arrives (full batches at once, the rest at shutdown), and its queue is
// bounded (spans past max_queue_size are dropped and counted, never buffered without limit).
import { SpanKind } from '@opentelemetry/api';
import t from 'tap';
import { OtlpExporter } from '../../src/tracing/otlp-exporter.ts';
import { SpanRecord } from '../../src/tracing/span-record.ts';
import { randomHexId } from '../../src/tracing/unsampled-trace.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

const receiver = await startOtlpReceiver();
t.teardown(() => receiver.close());

const resource = { attributes: { 'service.name': 'exporter-test' }, scope: { name: 'polygate', version: '0.0.0' } };
const traceId = randomHexId(16);
function span(i: number, name = 'span'): SpanRecord {
  const s = new SpanRecord(traceId, randomHexId(8), undefined, `${name} ${i}`, SpanKind.INTERNAL, Date.now(), { 'polygate.n': i }, undefined, false);
  s.end = s.start + 1;
  return s;
}
const named = (name: string): string[] => receiver.spans.filter((s) => s.name.startsWith(`${name} `)).map((s) => s.name);

t.test('full batches leave at once, the rest at shutdown; nothing is lost', async (t) => {
  const exporter = new OtlpExporter({ url: receiver.url, headers: {}, resource, maxQueue: 1000, intervalMs: 60_000, batchSize: 100 });
  const exportsBefore = receiver.contentTypes.length;
  const spans = Array.from({ length: 250 }, (_, i) => span(i));
  for (const s of spans) exporter.add(s);
  // Two full batches are sent without waiting for the (one-minute) interval.
  await waitFor('two full batches', async () => (named('span').length >= 200 ? true : undefined));
  await exporter.shutdown();
  const got = receiver.spans.filter((s) => s.traceId === traceId && s.name.startsWith('span '));
  t.equal(got.length, 250);
  t.same(new Set(got.map((s) => s.spanId)), new Set(spans.map((s) => s.spanId)), 'every span, once');
  t.equal(receiver.contentTypes.length - exportsBefore, 3, 'batches of at most 100');
  t.equal(got[0].resource['service.name'], 'exporter-test');
  t.match(got.find((s) => s.name === 'span 7')?.attributes, { 'polygate.n': 7 });
  t.equal(exporter.exported, 250);
  t.equal(exporter.dropped, 0);
  exporter.add(span(999));
  t.equal(exporter.dropped, 1, 'a span ending after shutdown is dropped, not queued');
});

t.test('the queue is bounded: spans past max_queue_size are dropped and counted', async (t) => {
  const exporter = new OtlpExporter({ url: receiver.url, headers: {}, resource, maxQueue: 10, intervalMs: 60_000, batchSize: 512 });
  for (let i = 0; i < 15; i++) exporter.add(span(i, 'bounded'));
  t.equal(exporter.dropped, 5);
  await exporter.shutdown();
  t.same(named('bounded').sort(), Array.from({ length: 10 }, (_, i) => `bounded ${i}`).sort(), 'the first ten');
  t.equal(exporter.exported, 10);
});

t.test('a collector that is down: exports fail, spans are dropped and counted, shutdown returns', async (t) => {
  const exporter = new OtlpExporter({ url: 'http://127.0.0.1:9/v1/traces', headers: {}, resource, maxQueue: 100, intervalMs: 60_000, timeoutMs: 2000 });
  for (let i = 0; i < 3; i++) exporter.add(span(i));
  await exporter.shutdown();
  t.equal(exporter.dropped, 3);
  t.equal(exporter.exported, 0);
});
