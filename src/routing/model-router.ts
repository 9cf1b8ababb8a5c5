import type { GatewayConfig, ModelConfig } from '../config/gateway-config.ts';
import { defaultUpstream, resolvePolicy, type RoutePolicy } from '../resilience/route-policy.ts';

/** One way to serve a model: a provider, its model name, and what the route may spend on resilience. */
export type Route = { provider: string; model: string; weight: number } & RoutePolicy;

/**
 * Client model name → the ordered routes to try. `fallback` tries them as configured;
 * `weighted` draws the first by weight and keeps the rest, in weight order, as fallbacks.
 * Each route carries its resolved timeouts, retries and breaker settings (src/resilience/).
 */
export class ModelRouter {
  readonly #models: Map<string, { strategy: 'fallback' | 'weighted'; routes: Route[] }>;
  constructor(models: Record<string, ModelConfig>, disabled: ReadonlyMap<string, string>, upstream: GatewayConfig['upstream'] = defaultUpstream) {
    this.#models = new Map(
      Object.entries(models).map(([name, m]) => [
        name,
        {
          strategy: m.strategy ?? 'fallback',
          routes: m.routes
            .filter((r) => !disabled.has(r.provider))
            .map((r) => ({ provider: r.provider, model: r.model, weight: r.weight ?? 1, ...resolvePolicy(upstream, m, r) })),
        },
      ]),
    );
  }

  has(model: string): boolean {
    return this.#models.has(model);
  }

  /** Routes in the order to try; empty when every route's provider is disabled. */
  plan(model: string, random: () => number = Math.random): Route[] {
    const m = this.#models.get(model);
    if (!m) return [];
    if (m.strategy === 'fallback' || m.routes.length < 2) return m.routes;
    const total = m.routes.reduce((n, r) => n + r.weight, 0);
    let x = random() * total;
    const first = m.routes.find((r) => (x -= r.weight) < 0) ?? m.routes[m.routes.length - 1];
    return [first, ...m.routes.filter((r) => r !== first).sort((a, b) => b.weight - a.weight)];
  }

  names(): string[] {
    return [...this.#models.keys()];
  }
}
