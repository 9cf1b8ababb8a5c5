// OTLP/HTTP JSON (ExportTraceServiceRequest) written straight from span records: one string per
// export, no intermediate object tree. The shape is the one @opentelemetry/otlp-transformer's
// JsonTraceSerializer produces for the same spans (test/tracing/otlp-json.test.ts compares them):
// hex ids, times as decimal strings of nanoseconds, integers as JSON numbers, kind = API kind + 1.
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import type { SpanRecord } from './span-record.ts';

export type OtlpResource = { attributes: Attributes; scope: { name: string; version: string } };

/** String attribute values are cut to this many characters (content attributes included), as the SDK's span limit did. */
export const maxValueLength = 16_384;

const q = (s: string): string => JSON.stringify(s);

function anyValue(v: AttributeValue | undefined): string {
  switch (typeof v) {
    case 'string':
      return `{"stringValue":${q(v.length > maxValueLength ? v.slice(0, maxValueLength) : v)}}`;
    case 'number':
      // JSON.stringify: NaN and ±Infinity become null, as in the SDK's serializer.
      return Number.isInteger(v) ? `{"intValue":${v}}` : `{"doubleValue":${JSON.stringify(v)}}`;
    case 'boolean':
      return `{"boolValue":${v}}`;
    case 'object': {
      if (!Array.isArray(v)) return '{}';
      let out = '';
      for (const item of v) out += (out ? ',' : '') + anyValue(item ?? undefined);
      return `{"arrayValue":{"values":[${out}]}}`;
    }
    default:
      return '{}';
  }
}

export function attributesJson(a: Attributes): string {
  let out = '';
  for (const key in a) {
    const v = a[key];
    if (v === undefined || v === null) continue;
    out += `${out ? ',' : ''}{"key":${q(key)},"value":${anyValue(v)}}`;
  }
  return `[${out}]`;
}

/** Epoch milliseconds (a float) as a decimal string of nanoseconds, without a float's rounding at 1e18. */
export function nanosOf(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  const nanos = Math.round((ms % 1000) * 1e6);
  if (seconds === 0) return String(nanos);
  return nanos >= 1e9 ? `${seconds + 1}000000000` : `${seconds}${String(nanos).padStart(9, '0')}`;
}

export function spanJson(s: SpanRecord): string {
  return (
    `{"traceId":"${s.traceId}","spanId":"${s.spanId}"` +
    (s.parentSpanId ? `,"parentSpanId":"${s.parentSpanId}"` : '') +
    (s.traceState !== undefined ? `,"traceState":${q(s.traceState)}` : '') +
    `,"name":${q(s.name)},"kind":${s.kind + 1},"startTimeUnixNano":"${nanosOf(s.start)}","endTimeUnixNano":"${nanosOf(s.end)}"` +
    `,"attributes":${attributesJson(s.attributes)},"droppedAttributesCount":0,"events":[],"droppedEventsCount":0` +
    `,"status":{"code":${s.status}${s.statusMessage !== undefined ? `,"message":${q(s.statusMessage)}` : ''}}` +
    `,"links":[],"droppedLinksCount":0,"flags":${s.flags}}`
  );
}

/** The head of an export up to its spans, the same for every export of the process. */
export function exportHead(r: OtlpResource): string {
  return `{"resourceSpans":[{"resource":{"attributes":${attributesJson(r.attributes)},"droppedAttributesCount":0},"scopeSpans":[{"scope":{"name":${q(r.scope.name)},"version":${q(r.scope.version)}},"spans":[`;
}

export const exportTail = ']}]}]}';

/** One export request of `spans` (used by tests and by the exporter through exportHead / spanJson). */
export function exportJson(r: OtlpResource, spans: readonly SpanRecord[]): string {
  return exportHead(r) + spans.map(spanJson).join(',') + exportTail;
}
