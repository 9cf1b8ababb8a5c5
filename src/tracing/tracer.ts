// The span exporter of this process (docs/usage-and-tracing.md): off unless tracing.endpoint is
// set; spans go in batches to an OTLP/HTTP collector (JSON encoding). Spans are recorded by the
// request's trace (src/tracing/request-trace.ts) as plain records and written as OTLP JSON by
// src/tracing/otlp-exporter.ts: no OpenTelemetry SDK objects, no global registration and no
// context manager, so nothing else in the process is affected.
import { createRequire } from 'node:module';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { OtlpExporter } from './otlp-exporter.ts';

type Tracing = { exporter: OtlpExporter; ratio: number };
let tracing: Tracing | null | undefined;

/**
 * The exporter, created on first use with the settings in force then (a reload does not change
 * them; a restart does). Undefined when tracing is off.
 */
export function tracingOf(config: GatewayConfig): Tracing | undefined {
  if (tracing === undefined) tracing = config.tracing.endpoint ? openTracing(config) : null;
  return tracing ?? undefined;
}

function openTracing(config: GatewayConfig): Tracing {
  const t = config.tracing;
  const exporter = new OtlpExporter({
    url: t.endpoint as string,
    headers: t.headers ?? {},
    resource: {
      attributes: { 'service.name': t.service_name, 'service.version': version(), 'telemetry.sdk.language': 'nodejs' },
      scope: { name: 'polygate', version: version() },
    },
    maxQueue: t.max_queue_size,
    intervalMs: t.export_interval_ms,
  });
  return { exporter, ratio: t.sample_ratio };
}

function version(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

/** Exports the spans still queued (src/main.ts, on SIGTERM, after the requests in flight ended). */
export async function closeTracing(): Promise<void> {
  const t = tracing;
  tracing = undefined;
  await t?.exporter.shutdown();
}
