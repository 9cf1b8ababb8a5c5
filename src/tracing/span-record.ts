// One finished (or finishing) span of a sampled request, as polygate records it
// (docs/usage-and-tracing.md): plain fields, no SDK object. A sampled request makes five to seven
// of these; the OpenTelemetry SDK's span objects (ids, attribute validation, processor hooks,
// then the OTLP transform into a second object tree) cost ~20 µs each on the fast path
// (bench/RESULTS.md), these a fraction of a microsecond. They go to the exporter when they end
// (src/tracing/otlp-exporter.ts), which writes OTLP JSON straight from them (src/tracing/otlp-json.ts).
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';

/** OTLP span flags: the W3C trace flags plus "has is-remote" and "parent is remote". */
const hasIsRemote = 0x100;
const isRemote = 0x200;

export class SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  name: string;
  readonly kind: SpanKind;
  /** Epoch milliseconds (performance.timeOrigin + performance.now(), sub-millisecond). */
  readonly start: number;
  /** Epoch milliseconds, set when the span ends. */
  end = 0;
  attributes: Attributes;
  /** The caller's tracestate, carried by every span of the trace (as the SDK's span contexts do). */
  readonly traceState: string | undefined;
  readonly flags: number;
  status: SpanStatusCode = SpanStatusCode.UNSET;
  statusMessage: string | undefined = undefined;

  constructor(traceId: string, spanId: string, parentSpanId: string | undefined, name: string, kind: SpanKind, start: number, attributes: Attributes, traceState: string | undefined, parentIsRemote: boolean) {
    this.traceId = traceId;
    this.spanId = spanId;
    this.parentSpanId = parentSpanId;
    this.name = name;
    this.kind = kind;
    this.start = start;
    this.attributes = attributes;
    this.traceState = traceState;
    // Recorded spans are sampled spans: trace flag 01.
    this.flags = 1 | hasIsRemote | (parentIsRemote ? isRemote : 0);
  }

  fail(message: string): void {
    this.status = SpanStatusCode.ERROR;
    this.statusMessage = message;
  }
}
