// The OpenTelemetry tracer of one gateway (docs/usage-and-tracing.md), held by its services (src/services/runtime/services.ts): off unless
// tracing.endpoint is set; spans go in batches to an OTLP/HTTP collector (JSON encoding).
// No global registration and no context manager: spans are parented explicitly through the
// request's trace (src/services/tracing/request-trace.ts), so nothing else in the process is affected.
import { createRequire } from 'node:module';
import type { Tracer } from '@opentelemetry/api';
import type { GatewayConfig } from '../config/gateway-config.ts';

/** `shutdown` exports the spans still queued (src/services/runtime/services.ts, after the requests in flight ended). */
export type Tracing = {
  tracer: Tracer;
  ratio: number;
  /** The caller's sampled flag is followed at most this many times a second (tracing.max_followed_per_second). */
  followedPerSecond: number;
  shutdown(): Promise<void>;
};

/**
 * The tracer, created at start with the settings in force then (a reload does not change them; a
 * restart does). Undefined when tracing is off. The SDK is loaded only when tracing is on, so
 * gateways without it do not pay its start-up time.
 */
export function openTracing(config: GatewayConfig): Tracing | undefined {
  return config.tracing.endpoint ? openProvider(config) : undefined;
}

function openProvider(config: GatewayConfig): Tracing {
  const t = config.tracing;
  const require = createRequire(import.meta.url);
  const sdk = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } =
    require('@opentelemetry/semantic-conventions') as typeof import('@opentelemetry/semantic-conventions');
  const exporter = new OTLPTraceExporter({ url: t.endpoint, headers: t.headers });
  const p = new sdk.TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: t.service_name, [ATTR_SERVICE_VERSION]: version() }),
    // The request's trace decides (sample_ratio, or the caller's flag) before any span is asked
    // for, so an unsampled request never reaches the SDK (src/services/tracing/request-trace.ts).
    sampler: new sdk.AlwaysOnSampler(),
    // Content attributes (log.content) are bounded like every other value.
    spanLimits: { attributeValueLengthLimit: 16_384 },
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter,
        maxQueueSize: t.max_queue_size,
        scheduledDelayMillis: t.export_interval_ms,
      }),
    ],
  });
  return {
    tracer: p.getTracer('polygate', version()),
    ratio: t.sample_ratio,
    followedPerSecond: t.max_followed_per_second,
    shutdown: () => p.shutdown(),
  };
}

function version(): string {
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}
