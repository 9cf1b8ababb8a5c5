import type { GatewayConfig, ModelConfig } from '../../infra/config/gateway-config.ts';
import { defaultUpstream } from '../../infra/config/upstream-defaults.ts';
import { isGlob, servingRoutes } from '../../infra/config/serving-routes.ts';
import { resolvePolicy, type RoutePolicy } from '../../infra/config/route-policy.ts';
import { matchGlob } from './match-glob.ts';

/**
 * One way to serve a model: a provider, its model name, and what the route may spend on resilience.
 * `breakerModel` is the upstream name as the config writes it (`{model}` for a pass-through), so
 * breakers and their metric series stay bounded by the config whatever names clients send.
 */
export type Route = { provider: string; model: string; weight: number; breakerModel: string } & RoutePolicy;

/** What a client-facing model name resolved to. */
export type ModelMatch = {
  /** The `models:` key that matched: the name itself or a glob. Bounded by the config (a metric label). */
  entry: string;
  glob: boolean;
  config: ModelConfig;
  /** The routes that serve now, upstream names filled in (empty when every provider is disabled). */
  routes: Route[];
};

type Entry = {
  name: string;
  /** Characters that are not wildcards: the more, the more specific the glob. */
  literals: number;
  config: ModelConfig;
  strategy: 'fallback' | 'weighted';
  /** Routes in use (see `serving`), upstream model still a template. */
  routes: (Route & { template: string })[];
};

/** The upstream model a route names when it names none: the client's own name. */
export const PASS_THROUGH = '{model}';
/** Names resolved through globs are remembered up to this many; then the memory starts over. */
const CACHE_LIMIT = 1024;
/** Longer names are not remembered (real model names are far shorter; Anthropic caps them at 256). */
const CACHE_NAME_LIMIT = 256;

/** A route's upstream model with `{model}` (the client's name) and `{1}`… (the glob's `*` parts) filled in. */
export function fillTemplate(template: string, name: string, captures: readonly string[] = []): string {
  return template.replace(/\{(model|[1-9])\}/g, (_, k: string) =>
    k === 'model' ? name : (captures[Number(k) - 1] ?? ''),
  );
}

/**
 * Client model name → the ordered routes to try. Exact names under `models:` win; otherwise the
 * glob with the most literal characters that matches, and among equally specific globs the one
 * written first. `fallback` tries routes as configured; `weighted` draws the first by weight and
 * keeps the rest, in weight order, as fallbacks. Each route carries its resolved timeouts, retries
 * and breaker settings (src/services/resilience/).
 */
export class ModelRouter {
  readonly #exact = new Map<string, ModelMatch & { strategy: Entry['strategy'] }>();
  readonly #globs: Entry[] = [];
  readonly #resolved = new Map<string, (ModelMatch & { strategy: Entry['strategy'] }) | null>();

  constructor(
    models: Record<string, ModelConfig>,
    disabled: ReadonlyMap<string, string>,
    upstream: GatewayConfig['upstream'] = defaultUpstream,
  ) {
    for (const [name, m] of Object.entries(models)) {
      const routes = servingRoutes(m.routes, disabled).map((r) => {
        const template = r.model ?? PASS_THROUGH;
        return {
          provider: r.provider,
          model: template,
          template,
          breakerModel: template,
          weight: r.weight ?? 1,
          ...resolvePolicy(upstream, m, r),
        };
      });
      const strategy = m.strategy ?? 'fallback';
      if (isGlob(name)) {
        this.#globs.push({ name, literals: name.replace(/[*?]/g, '').length, config: m, strategy, routes });
        continue;
      }
      // An exact entry's names are known now: `{model}` is the entry's own name.
      const filled = routes.map(({ template, ...r }) => ({
        ...r,
        model: fillTemplate(template, name),
        breakerModel: fillTemplate(template, name),
      }));
      this.#exact.set(name, { entry: name, glob: false, config: m, strategy, routes: filled });
    }
    // Stable sort: equally specific globs keep the file's order.
    this.#globs.sort((a, b) => b.literals - a.literals);
  }

  /** The entry a name hits, or undefined when none does (the client gets 404). */
  resolve(model: string): ModelMatch | undefined {
    return this.#lookup(model) ?? undefined;
  }

  #lookup(model: string): (ModelMatch & { strategy: Entry['strategy'] }) | null {
    const exact = this.#exact.get(model);
    if (exact) return exact;
    let hit = this.#resolved.get(model);
    if (hit !== undefined) return hit;
    hit = null;
    for (const g of this.#globs) {
      const captures = matchGlob(g.name, model);
      if (!captures) continue;
      const routes = g.routes.map(({ template, ...r }) => ({ ...r, model: fillTemplate(template, model, captures) }));
      hit = { entry: g.name, glob: true, config: g.config, strategy: g.strategy, routes };
      break;
    }
    if (model.length > CACHE_NAME_LIMIT) return hit;
    if (this.#resolved.size >= CACHE_LIMIT) this.#resolved.clear();
    this.#resolved.set(model, hit);
    return hit;
  }

  has(model: string): boolean {
    return this.#lookup(model) !== null;
  }

  /** Routes in the order to try; empty when every route's provider is disabled or the name is unknown. */
  plan(model: string, random: () => number = Math.random): Route[] {
    const m = this.#lookup(model);
    if (!m) return [];
    if (m.strategy === 'fallback' || m.routes.length < 2) return m.routes;
    const total = m.routes.reduce((n, r) => n + r.weight, 0);
    let x = random() * total;
    const first = m.routes.find((r) => (x -= r.weight) < 0) ?? m.routes[m.routes.length - 1];
    return [first, ...m.routes.filter((r) => r !== first).sort((a, b) => b.weight - a.weight)];
  }

  /** The exact names under `models:`, in the file's order; globs cannot be listed. */
  names(): string[] {
    return [...this.#exact.keys()];
  }
}
