// The breakers of one gateway, one per provider and upstream model. The board lives in the
// gateway's services (src/services/runtime/services.ts), beside the runtime, not in it: a config reload keeps what
// the breakers learnt about each upstream. Breaker state is per instance (not shared through
// Redis): each instance sees its own path to the upstream, and a breaker must react within a
// request, not within a store round trip.
import type { Logger } from 'pino';
import { breakerRouteState, breakerState, breakerStates } from '../../infra/metrics/registry.ts';
import { CircuitBreaker, type BreakerState } from './circuit-breaker.ts';

export class BreakerBoard {
  /** Each provider's breakers by upstream model: the one record of them (listing and lookup alike). */
  readonly #byProvider = new Map<string, Map<string, CircuitBreaker>>();
  /** Where breaker transitions are logged. */
  readonly #log: Logger | undefined;

  constructor(log?: Logger) {
    this.#log = log;
  }

  of(provider: string, model: string): CircuitBreaker {
    // By provider, then model: every upstream call asks, and a joined key would be a new string each time.
    let models = this.#byProvider.get(provider);
    if (!models) this.#byProvider.set(provider, (models = new Map()));
    let breaker = models.get(model);
    if (!breaker) {
      breaker = new CircuitBreaker((state, why) => this.#changed(provider, model, state, why));
      models.set(model, breaker);
    }
    return breaker;
  }

  /** Every route's breaker as it is now, for the operator (GET /admin/providers). */
  routes(): { provider: string; model: string; breaker: CircuitBreaker }[] {
    const out: { provider: string; model: string; breaker: CircuitBreaker }[] = [];
    for (const [provider, models] of this.#byProvider)
      for (const [model, breaker] of models) out.push({ provider, model, breaker });
    return out;
  }

  #changed(provider: string, model: string, state: BreakerState, why: string): void {
    breakerRouteState.set({ provider, upstream_model: model }, breakerStates[state]);
    // The provider's series is its worst route: the dashboard panel shows providers.
    let worst = 0;
    for (const b of this.#byProvider.get(provider)?.values() ?? []) worst = Math.max(worst, breakerStates[b.state]);
    breakerState.set({ provider }, worst);
    const line = { provider, upstream_model: model, breaker: state, reason: why };
    if (state === 'open') this.#log?.warn(line, 'circuit breaker opened');
    else this.#log?.info(line, state === 'closed' ? 'circuit breaker closed' : 'circuit breaker half-open');
  }
}
