// W3C Trace Context `traceparent` (version 00): 00-<trace id>-<parent span id>-<flags>.
import type { SpanContext } from '@opentelemetry/api';

const pattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const zeros = /^0+$/;

/** The caller's span context, or undefined for a missing or malformed header (a new trace starts). */
export function parseTraceparent(header: string | undefined, tracestate: string | undefined): SpanContext | undefined {
  const m = header === undefined ? null : pattern.exec(header.trim().toLowerCase());
  if (!m || zeros.test(m[1]) || zeros.test(m[2])) return undefined;
  return {
    traceId: m[1],
    spanId: m[2],
    traceFlags: parseInt(m[3], 16) & 1,
    isRemote: true,
    ...(tracestate ? { traceState: new RawTraceState(tracestate) } : {}),
  };
}

export function formatTraceparent(c: SpanContext): string {
  return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 1).toString(16).padStart(2, '0')}`;
}

/** tracestate is opaque to polygate: carried as the caller sent it. */
class RawTraceState {
  readonly #raw: string;
  constructor(raw: string) {
    this.#raw = raw.slice(0, 512);
  }
  set(): RawTraceState {
    return this;
  }
  unset(): RawTraceState {
    return this;
  }
  get(): string | undefined {
    return undefined;
  }
  serialize(): string {
    return this.#raw;
  }
}
