// The defaults of `upstream:` (timeouts, retries, breaker) that a config may leave out. They live
// with the config, below the services that apply them (src/infra/config/route-policy.ts resolves them
// per route), so the config loader needs nothing from the layers above it (docs/architecture.md).
import type { BreakerConfig, GatewayConfig, RetriesConfig } from './gateway-config.ts';

/**
 * No same-route retry unless asked: a failed route falls back to the next one at once, which is
 * what a model with several routes wants; a single-route model opts in with `max_retries`.
 */
export const defaultRetries: RetriesConfig = {
  max_retries: 0,
  base_delay_ms: 200,
  max_delay_ms: 5_000,
  max_retry_after_ms: 10_000,
};

export const defaultBreaker: BreakerConfig = {
  consecutive_failures: 5,
  failure_ratio: 0.5,
  min_calls: 20,
  window_ms: 60_000,
  cooldown_ms: 30_000,
};

export const defaultUpstream: GatewayConfig['upstream'] = {
  connect_timeout_ms: 10_000,
  first_byte_timeout_ms: 120_000,
  idle_timeout_ms: 120_000,
  max_connections: 4096,
  // 64 MiB: far past any chat answer, and still a bound on what one misbehaving upstream can make a request hold.
  max_answer_bytes: 64 * 1024 * 1024,
  retries: defaultRetries,
  breaker: defaultBreaker,
};
