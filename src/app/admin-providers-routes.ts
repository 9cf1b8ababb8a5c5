// GET /admin/providers and GET /admin/models (docs/console.md): what the config serves and how
// its upstreams are doing on this instance (breaker state, calls and failures of the last five
// minutes). Lists in the admin API's shape ({data, next_cursor}); the order is the config file's.
import { invalid } from '../ir/gateway-error.ts';
import type { BreakerBoard } from '../services/resilience/breaker-board.ts';
import type { BreakerState } from '../services/resilience/circuit-breaker.ts';
import type { GatewayContext, GatewayRouter } from '../services/runtime/gateway-context.ts';

const worse: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** ?limit= (1–500, default 50) and ?cursor= (opaque, from next_cursor); any other parameter is refused. */
export function pageOf<T>(items: T[], query: GatewayContext['query']): { data: T[]; next_cursor: string | null } {
  for (const name of Object.keys(query))
    if (name !== 'limit' && name !== 'cursor')
      throw invalid(name.slice(0, 64), `${name.slice(0, 64)}: not a parameter of this list (limit, cursor)`);
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[v.length - 1] : v);
  const limitText = one(query.limit) ?? '50';
  const limit = /^\d{1,3}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= 500)) throw invalid('limit', 'limit: a whole number from 1 to 500');
  const cursor = one(query.cursor);
  let start = 0;
  if (cursor !== undefined) {
    const m = /^o(\d{1,6})$/.exec(Buffer.from(cursor.slice(0, 32), 'base64url').toString('latin1'));
    if (!m) throw invalid('cursor', 'cursor: not a cursor this list gave');
    start = Number(m[1]);
  }
  const data = items.slice(start, start + limit);
  const next = start + limit < items.length ? Buffer.from(`o${start + limit}`).toString('base64url') : null;
  return { data, next_cursor: next };
}

const rate = (calls: number, failures: number): number | null =>
  calls === 0 ? null : Math.round((failures / calls) * 10_000) / 10_000;

function routesOf(breakers: BreakerBoard, provider: string) {
  return breakers
    .routes()
    .filter((r) => r.provider === provider)
    .map(({ model, breaker }) => {
      const recent = breaker.recent;
      return {
        upstream_model: model,
        breaker: breaker.state,
        retry_in_ms: breaker.retryInMs,
        calls: recent.calls,
        failures: recent.failures,
        error_rate: rate(recent.calls, recent.failures),
      };
    });
}

export function registerProviderRoutes(router: GatewayRouter): void {
  router.get('/admin/providers', (ctx) => {
    const { runtime, services } = ctx.state;
    const providers = Object.entries(runtime.config.providers).map(([id, p]) => {
      const routes = routesOf(services.breakers, id);
      const calls = routes.reduce((a, r) => a + r.calls, 0);
      const failures = routes.reduce((a, r) => a + r.failures, 0);
      const breaker = routes.reduce<BreakerState>((w, r) => (worse[r.breaker] > worse[w] ? r.breaker : w), 'closed');
      return {
        id,
        type: p.type,
        enabled: !runtime.disabled.has(id),
        disabled_reason: runtime.disabled.get(id) ?? null,
        breaker,
        recent: { window_seconds: 300, calls, failures, error_rate: rate(calls, failures) },
        routes,
      };
    });
    ctx.body = pageOf(providers, ctx.query);
  });

  router.get('/admin/models', (ctx) => {
    const { runtime, services } = ctx.state;
    const states = new Map(services.breakers.routes().map((r) => [`${r.provider}\u0000${r.model}`, r.breaker.state]));
    const models = Object.entries(runtime.config.models).map(([id, m]) => ({
      id,
      glob: /[*?]/.test(id),
      strategy: m.strategy ?? 'fallback',
      display_name: m.display_name ?? null,
      context_window: m.context_window ?? null,
      price: runtime.config.usage.prices.models[id] ?? null,
      routes: m.routes.map((r) => ({
        provider: r.provider,
        // Omitted in the config: the client's own name goes upstream.
        upstream_model: r.model ?? id,
        standby: r.standby ?? false,
        weight: r.weight ?? null,
        provider_enabled: !runtime.disabled.has(r.provider),
        breaker: states.get(`${r.provider}\u0000${r.model ?? id}`) ?? 'closed',
      })),
    }));
    ctx.body = pageOf(models, ctx.query);
  });
}
