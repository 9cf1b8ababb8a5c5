// What one route of a model may spend on resilience: its timeouts, its retries and the breaker
// settings of its provider and upstream model. Resolved once per config (src/routing/model-router.ts)
// from the route's own overrides over the model's, over `upstream.*`, so the request path never
// merges settings.
import type { BreakerConfig, GatewayConfig, ModelConfig, RetriesConfig, RouteConfig } from '../config/gateway-config.ts';

export type RouteTimeouts = { connectMs: number; firstByteMs: number; idleMs: number };

export type RoutePolicy = { timeouts: RouteTimeouts; retries: RetriesConfig; breaker: BreakerConfig };

/**
 * No same-route retry unless asked: a failed route falls back to the next one at once, which is
 * what a model with several routes wants; a single-route model opts in with `max_retries`.
 */
export const defaultRetries: RetriesConfig = { max_retries: 0, base_delay_ms: 200, max_delay_ms: 5_000, max_retry_after_ms: 10_000 };

export const defaultBreaker: BreakerConfig = { consecutive_failures: 5, failure_ratio: 0.5, min_calls: 20, window_ms: 60_000, cooldown_ms: 30_000 };

export const defaultUpstream: GatewayConfig['upstream'] = {
  connect_timeout_ms: 10_000,
  first_byte_timeout_ms: 120_000,
  idle_timeout_ms: 120_000,
  max_connections: 4096,
  retries: defaultRetries,
  breaker: defaultBreaker,
};

export function resolvePolicy(upstream: GatewayConfig['upstream'], model: ModelConfig, route: RouteConfig): RoutePolicy {
  const t = route.timeouts ?? {};
  return {
    timeouts: {
      connectMs: t.connect_ms ?? upstream.connect_timeout_ms,
      firstByteMs: t.first_byte_ms ?? upstream.first_byte_timeout_ms,
      idleMs: t.idle_ms ?? upstream.idle_timeout_ms,
    },
    retries: { ...upstream.retries, ...route.retries },
    breaker: { ...upstream.breaker, ...model.breaker },
  };
}
