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

/**
 * Quoted strings that recur on every span (attribute keys, model, provider and format names,
 * span names): quoted once. Bounded: cleared when full, so client-chosen values cannot grow it.
 */
const quoted = new Map<string, string>();
function qc(s: string): string {
  let out = quoted.get(s);
  if (out === undefined) {
    out = q(s);
    if (s.length <= 64) {
      if (quoted.size >= 2048) quoted.clear();
      quoted.set(s, out);
    }
  }
  return out;
}

function anyValue(v: AttributeValue | undefined): string {
  switch (typeof v) {
    case 'string':
      return `{"stringValue":${v.length > maxValueLength ? q(v.slice(0, maxValueLength)) : qc(v)}}`;
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
    out += `${out ? ',' : ''}{"key":${qc(key)},"value":${anyValue(v)}}`;
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

/**
 * One span. Fields at their default (no events, no links, nothing dropped) are left out, as
 * OTLP's JSON encoding (proto3) allows; the SDK's serializer writes them out.
 */
export function spanJson(s: SpanRecord): string {
  return (
    `{"traceId":"${s.traceId}","spanId":"${s.spanId}"` +
    (s.parentSpanId ? `,"parentSpanId":"${s.parentSpanId}"` : '') +
    (s.traceState !== undefined ? `,"traceState":${q(s.traceState)}` : '') +
    `,"name":${qc(s.name)},"kind":${s.kind + 1},"startTimeUnixNano":"${nanosOf(s.start)}","endTimeUnixNano":"${nanosOf(s.end)}"` +
    `,"attributes":${attributesJson(s.attributes)}` +
    `,"status":{"code":${s.status}${s.statusMessage !== undefined ? `,"message":${q(s.statusMessage)}` : ''}},"flags":${s.flags}}`
  );
}

/** The head of an export up to its spans, the same for every export of the process. */
export function exportHead(r: OtlpResource): string {
  return `{"resourceSpans":[{"resource":{"attributes":${attributesJson(r.attributes)},"droppedAttributesCount":0},"scopeSpans":[{"scope":{"name":${q(r.scope.name)},"version":${q(r.scope.version)}},"spans":[`;
}

export const exportTail = ']}]}]}';

/** One export request of `spans` (the exporter builds the same from exportHead, spanJson and exportTail). */
export function exportJson(r: OtlpResource, spans: readonly SpanRecord[]): string {
  return exportHead(r) + spans.map(spanJson).join(',') + exportTail;
}
