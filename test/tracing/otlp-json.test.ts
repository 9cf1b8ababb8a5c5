// polygate writes OTLP JSON itself (src/tracing/otlp-json.ts); the reference is the OpenTelemetry
// JS serializer (@opentelemetry/otlp-transformer's JsonTraceSerializer, what
// @opentelemetry/exporter-trace-otlp-http sends). The same spans, given to both as the SDK would
// hold them, must give the same export once parsed.
import { createRequire } from 'node:module';
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import t from 'tap';
import { exportJson, maxValueLength, nanosOf } from '../../src/tracing/otlp-json.ts';
import { SpanRecord } from '../../src/tracing/span-record.ts';

const require = createRequire(import.meta.url);
// Transitive dependencies of @opentelemetry/exporter-trace-otlp-http, resolved from there.
const fromExporter = createRequire(require.resolve('@opentelemetry/exporter-trace-otlp-http'));
const { JsonTraceSerializer } = fromExporter('@opentelemetry/otlp-transformer') as { JsonTraceSerializer: { serializeRequest(spans: unknown[]): Uint8Array } };
const { millisToHrTime } = fromExporter('@opentelemetry/core') as { millisToHrTime(ms: number): [number, number] };

const resource = { attributes: { 'service.name': 'polygate-test', 'service.version': '1.2.3', 'telemetry.sdk.language': 'nodejs' }, scope: { name: 'polygate', version: '1.2.3' } };

/** One object: the serializer groups spans by resource identity, as the SDK shares one per provider. */
const sdkResource = { attributes: resource.attributes };

/** The span as the SDK's ReadableSpan holds it, for the reference serializer. */
function readable(s: SpanRecord): unknown {
  const traceFlags = s.flags & 0xff;
  return {
    name: s.name,
    kind: s.kind,
    spanContext: () => ({ traceId: s.traceId, spanId: s.spanId, traceFlags, traceState: s.traceState === undefined ? undefined : { serialize: () => s.traceState } }),
    parentSpanContext: s.parentSpanId ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags, isRemote: (s.flags & 0x200) !== 0 } : undefined,
    startTime: millisToHrTime(s.start),
    endTime: millisToHrTime(s.end),
    status: s.statusMessage === undefined ? { code: s.status } : { code: s.status, message: s.statusMessage },
    attributes: s.attributes,
    links: [],
    events: [],
    duration: [0, 0],
    ended: true,
    resource: sdkResource,
    instrumentationScope: resource.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The reference with span fields at their proto3 default left out (no events, links, drops), as polygate writes it. */
function withoutDefaults(x: unknown): unknown {
  const e = x as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
  for (const rs of e.resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const s of ss.spans)
        for (const k of ['droppedAttributesCount', 'events', 'droppedEventsCount', 'links', 'droppedLinksCount']) {
          const v = s[k];
          if (v === 0 || (Array.isArray(v) && v.length === 0)) delete s[k];
        }
  return x;
}

const t0 = performance.timeOrigin + performance.now();
function span(name: string, kind: SpanKind, parent: SpanRecord | { spanId: string; remote: true } | undefined, attributes: Attributes, traceState?: string): SpanRecord {
  const remote = parent !== undefined && 'remote' in parent;
  const s = new SpanRecord('4bf92f3577b34da6a3ce929d0e0e4736', Math.random().toString(16).slice(2, 10).padEnd(16, '7'), parent?.spanId, name, kind, t0 + Math.random() * 10, attributes, traceState, remote);
  s.end = s.start + 0.123456;
  return s;
}

t.test('the same export as the OpenTelemetry JSON serializer', async (t) => {
  const root = span('POST /v1/messages', SpanKind.SERVER, { spanId: '00f067aa0ba902b7', remote: true }, {
    'http.request.method': 'POST',
    'http.response.status_code': 200,
    'gen_ai.request.temperature': 0.25,
    'polygate.stream': true,
    'gen_ai.request.stop_sequences': ['END', 'Ω "quoted"\n'],
    'polygate.warnings': ['tools[0].cache_control dropped'],
    'polygate.note': 'unicode ✓ and \u0001 control',
  }, 'vendor=opaque');
  root.fail('stream_aborted');
  const attempt = span('polygate.route_attempt', SpanKind.INTERNAL, root, { 'polygate.attempt': 1, 'error.type': 'upstream' }, 'vendor=opaque');
  attempt.fail('upstream broke');
  const call = span('chat gpt-4.1', SpanKind.CLIENT, attempt, { 'gen_ai.request.model': 'gpt-4.1' });
  const fresh = span('POST', SpanKind.SERVER, undefined, {});
  const spans = [root, attempt, call, fresh];
  const ours = JSON.parse(exportJson(resource, spans)) as unknown;
  const reference = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans.map(readable)))) as unknown;
  t.same(ours, withoutDefaults(reference));
});

t.test('times: nanoseconds as the SDK computes them from epoch milliseconds', async (t) => {
  for (const ms of [0, 1, 999.999999, 1763900000123.4568, t0]) {
    const [s, n] = millisToHrTime(ms);
    t.equal(nanosOf(ms), (BigInt(s) * 1_000_000_000n + BigInt(n)).toString(), String(ms));
  }
});

t.test('long string values are cut at the span limit', async (t) => {
  const s = span('x', SpanKind.INTERNAL, undefined, { 'gen_ai.input.messages': 'a'.repeat(maxValueLength + 10) });
  const out = JSON.parse(exportJson(resource, [s])) as { resourceSpans: { scopeSpans: { spans: { attributes: { value: { stringValue: string } }[] }[] }[] }[] };
  t.equal(out.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.stringValue.length, maxValueLength);
});
