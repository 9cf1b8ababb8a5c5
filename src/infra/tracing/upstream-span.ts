// What an upstream call needs from tracing: headers that carry the trace to the upstream, and an
// end. Providers and the relay see only this, never the SDK.

export type UpstreamSpan = {
  /** `traceparent` (and the caller's `tracestate`) naming the upstream call's span. */
  readonly headers: Record<string, string>;
  /** The upstream answered with `status`, or failed before answering. */
  end(status: number | undefined, error?: Error): void;
};

export type UpstreamTracer = {
  upstream(provider: string, format: string, upstreamModel: string): UpstreamSpan;
};
