// What one route of a model may spend on resilience: its timeouts, its retries and the breaker
// settings of its provider and upstream model. Resolved once per config (src/services/routing/model-router.ts)
// from the route's own overrides over the model's, over `upstream.*`, so the request path never
// merges settings.
import type { BreakerConfig, GatewayConfig, ModelConfig, RetriesConfig, RouteConfig } from './gateway-config.ts';
import type { HostedToolsMode } from './hosted-tools-config.ts';

export type RouteTimeouts = { connectMs: number; firstByteMs: number; idleMs: number };

export type RoutePolicy = {
  timeouts: RouteTimeouts;
  retries: RetriesConfig;
  breaker: BreakerConfig;
  /** The route's or its model's `hosted_tools`; unset: the provider's (docs/hosted-tools.md). */
  hostedTools?: HostedToolsMode;
};

export function resolvePolicy(
  upstream: GatewayConfig['upstream'],
  model: ModelConfig,
  route: RouteConfig,
): RoutePolicy {
  const t = route.timeouts ?? {};
  return {
    timeouts: {
      connectMs: t.connect_ms ?? upstream.connect_timeout_ms,
      firstByteMs: t.first_byte_ms ?? upstream.first_byte_timeout_ms,
      idleMs: t.idle_ms ?? upstream.idle_timeout_ms,
    },
    retries: { ...upstream.retries, ...route.retries },
    breaker: { ...upstream.breaker, ...model.breaker },
    ...(route.hosted_tools || model.hosted_tools ? { hostedTools: route.hosted_tools ?? model.hosted_tools } : {}),
  };
}
