// `node bench/ledger-micro.ts`: CPU per request of two small pieces of the ledger and tracing work,
// measured in isolation because `npm run bench:ledger` cannot resolve a few µs on a shared machine
// (bench/RESULTS.md): an unsampled request's tracing (src/services/tracing/unsampled-trace.ts) beside what
// the SDK's non-recording span cost before it, and the sqlite ledger's append per record.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTraceparent } from '../src/infra/tracing/traceparent.ts';
import { UnsampledTrace } from '../src/services/tracing/unsampled-trace.ts';
import { SqliteLedgerStore } from '../src/services/usage/sqlite-ledger-store.ts';
import type { UsageRecord } from '../src/services/usage/usage-record.ts';
import { sampleRecord } from '../test/usage/sample-record.ts';

const require = createRequire(import.meta.url);
const sdk = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');

const cpuUs = (f: () => void, n: number): number => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
};

// The SDK path an unsampled request took before: a ratio sampler saying no, a non-recording span,
// its context and the traceparent sent upstream.
const provider = new sdk.TracerProvider({
  sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(0) }),
});
const tracer = provider.getTracer('polygate');
const traces = new WeakMap<object, unknown>();
const viaSdk = (): void => {
  const root = tracer.startSpan(
    'POST',
    {
      kind: api.SpanKind.SERVER,
      startTime: performance.timeOrigin + performance.now(),
      attributes: { 'http.request.method': 'POST', 'gen_ai.operation.name': 'chat', 'polygate.request_id': 'r' },
    },
    api.ROOT_CONTEXT,
  );
  traces.set({}, { root, ctx: api.trace.setSpan(api.ROOT_CONTEXT, root) });
  formatTraceparent(root.spanContext());
  root.end();
};
const traceKey = Symbol('trace');
const unsampled = (): void => {
  // On the request's state, as src/services/tracing/request-trace.ts keeps it.
  const state: { [traceKey]?: UnsampledTrace } = {};
  const t = (state[traceKey] = new UnsampledTrace(undefined, undefined));
  t.upstream();
};
for (let round = 1; round <= 3; round++) {
  process.stdout.write(
    `unsampled request, round ${round}: SDK non-recording span ${cpuUs(viaSdk, 300_000).toFixed(2)} µs, UnsampledTrace ${cpuUs(unsampled, 300_000).toFixed(2)} µs\n`,
  );
}

const record = (i: number): UsageRecord => sampleRecord(i, { key: 'bench', day: '2026-11-23' });
const dir = mkdtempSync(join(tmpdir(), 'ledger-micro-'));
const store = new SqliteLedgerStore(join(dir, 'ledger.db'));
const batch = Array.from({ length: 500 }, (_, i) => record(i));
for (let i = 0; i < 20; i++) await store.append(batch);
for (let round = 1; round <= 3; round++) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < 100; i++) await store.append(batch);
  const u = process.cpuUsage(t0);
  process.stdout.write(
    `sqlite ledger append, round ${round}: ${((u.user + u.system) / (100 * batch.length)).toFixed(2)} µs CPU per record\n`,
  );
}
await store.close();
rmSync(dir, { recursive: true, force: true });
