// The breakers of this process, one per provider and upstream model. They live beside the
// runtime, not in it: a config reload keeps what the breakers learnt about each upstream.
// Breaker state is per instance (not shared through Redis): each instance sees its own path to
// the upstream, and a breaker must react within a request, not within a store round trip.
import type { Logger } from 'pino';
import { breakerRouteState, breakerState, breakerStates } from '../metrics/registry.ts';
import { CircuitBreaker, type BreakerState } from './circuit-breaker.ts';

const breakers = new Map<string, { provider: string; model: string; breaker: CircuitBreaker }>();
let log: Logger | undefined;

/** Where breaker transitions are logged (src/app.ts sets the app's logger). */
export function logBreakersTo(logger: Logger): void {
  log = logger;
}

export function breakerOf(provider: string, model: string): CircuitBreaker {
  const id = `${provider}\u0000${model}`;
  let b = breakers.get(id);
  if (!b) {
    const breaker = new CircuitBreaker((state, why) => changed(provider, model, state, why));
    breakers.set(id, (b = { provider, model, breaker }));
  }
  return b.breaker;
}

function changed(provider: string, model: string, state: BreakerState, why: string): void {
  breakerRouteState.set({ provider, upstream_model: model }, breakerStates[state]);
  // The provider's series is its worst route: the dashboard panel shows providers.
  let worst = 0;
  for (const b of breakers.values()) if (b.provider === provider) worst = Math.max(worst, breakerStates[b.breaker.state]);
  breakerState.set({ provider }, worst);
  const line = { provider, upstream_model: model, breaker: state, reason: why };
  if (state === 'open') log?.warn(line, 'circuit breaker opened');
  else log?.info(line, state === 'closed' ? 'circuit breaker closed' : 'circuit breaker half-open');
}
