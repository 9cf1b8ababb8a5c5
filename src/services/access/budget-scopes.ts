// Which budgets a request answers to (docs/usage-and-tracing.md, "Budgets"): its key's (the YAML's
// usage.budgets, else a runtime key's own), its workspace's (usage.workspace_budgets), and, for
// each route tried, its provider's (usage.provider_budgets); with what is used of each.
import type { BudgetLimit, BudgetPeriod, BudgetScope, BudgetSpec } from '../../infra/config/budget-spec.ts';
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import type { ApiKey } from '../auth/key-ring.ts';
import { windowOf } from '../usage/budget-periods.ts';
import { scopeId, type PeriodLimit, type ScopeLimits, type Spent } from '../usage/ledger-store.ts';
import { nanoPerUsd } from '../usage/prices.ts';

/** A limit in the ledger's units, with its metric labels. */
export type NamedLimit = PeriodLimit & { usdName: string; tokensName: string };

/** A scope with a budget, and its limits in the ledger's units. */
export type ScopeBudget = {
  scope: BudgetScope;
  /** The name its totals are kept under in the ledger (ledger-store.ts scopeId). */
  store: string;
  spec: BudgetSpec;
  limits: NamedLimit[];
  /** What the ledger's admission checks. */
  asLimits: ScopeLimits;
  /** Some limit has a soft ratio (the webhook). */
  soft: boolean;
  source: 'config' | 'runtime';
};

/** A limit in force: a period with a USD or token amount above 0. */
const inForce = (l: BudgetLimit): boolean => (l.usd ?? 0) > 0 || (l.tokens ?? 0) > 0;

export function scopeBudget(scope: BudgetScope, spec: BudgetSpec, source: 'config' | 'runtime'): ScopeBudget {
  const store = scopeId(scope.kind, scope.id);
  const limits = spec.limits.filter(inForce).map((l) => ({
    period: l.period,
    costNano: Math.round((l.usd ?? 0) * nanoPerUsd),
    tokens: l.tokens ?? 0,
    usdName: `usd_per_${l.period}`,
    tokensName: `tokens_per_${l.period}`,
  }));
  return {
    scope,
    store,
    spec,
    source,
    limits,
    asLimits: { scope: store, limits },
    soft: spec.limits.some((l) => l.soft_ratio !== undefined && inForce(l)),
  };
}

/** A key's budget: the YAML's for a key of the config, else what a runtime key carries. */
export function keyBudgetOf(
  config: GatewayConfig,
  key: ApiKey,
): { spec: BudgetSpec; source: 'config' | 'runtime' } | undefined {
  const own = config.usage.budgets[key.id];
  if (own) return { spec: own, source: 'config' };
  return key.budget && { spec: key.budget, source: 'runtime' };
}

/** By key object: a key's scopes are worked out once per config (and per runtime budget). */
const cache = new WeakMap<ApiKey, { config: GatewayConfig; budget: BudgetSpec | undefined; scopes: ScopeBudget[] }>();

/** The key's and its workspace's budgets that limit something; empty for most keys. */
export function requestScopes(config: GatewayConfig, key: ApiKey): ScopeBudget[] {
  const c = cache.get(key);
  if (c && c.config === config && c.budget === key.budget) return c.scopes;
  const scopes: ScopeBudget[] = [];
  const own = keyBudgetOf(config, key);
  if (own) scopes.push(scopeBudget({ kind: 'key', id: key.id }, own.spec, own.source));
  const ws = config.usage.workspace_budgets[key.workspace];
  if (ws) scopes.push(scopeBudget({ kind: 'workspace', id: key.workspace }, ws, 'config'));
  const inUse = scopes.filter((s) => s.limits.length > 0);
  cache.set(key, { config, budget: key.budget, scopes: inUse });
  return inUse;
}

const providerCache = new WeakMap<GatewayConfig, Map<string, ScopeBudget | undefined>>();

/** A provider's budget when it limits something. */
export function providerScope(config: GatewayConfig, provider: string): ScopeBudget | undefined {
  let m = providerCache.get(config);
  if (m === undefined) providerCache.set(config, (m = new Map()));
  if (m.has(provider)) return m.get(provider);
  const spec = config.usage.provider_budgets[provider];
  const s = spec && scopeBudget({ kind: 'provider', id: provider }, spec, 'config');
  const inUse = s && s.limits.length > 0 ? s : undefined;
  m.set(provider, inUse);
  return inUse;
}

/** One limit of a budget with what is used of it now (the admin API, refusals, the tenant's view). */
export type BudgetUse = {
  period: BudgetPeriod;
  limitUsd: number | null;
  limitTokens: number | null;
  usedUsd: number;
  usedTokens: number;
  /** The larger of the USD and token shares used (1 = used up). */
  ratio: number;
  softRatio: number | null;
  windowStart: Date;
  resetsAt: Date;
  /** The metric label and the refusal's name of the limit: `usd_per_day`, `tokens_per_week`, … */
  name: string;
};

/** Each limit of a budget that is in force, with what `spent` uses of it at `now`. */
export function budgetUses(spec: BudgetSpec, spent: Readonly<Spent>, now: number): BudgetUse[] {
  const out: BudgetUse[] = [];
  for (const l of spec.limits) {
    if (!inForce(l)) continue;
    const t = spent[l.period];
    const usedUsd = t.costNano / nanoPerUsd;
    const limitUsd = (l.usd ?? 0) > 0 ? (l.usd as number) : null;
    const limitTokens = (l.tokens ?? 0) > 0 ? (l.tokens as number) : null;
    const w = windowOf(l.period, now);
    out.push({
      period: l.period,
      limitUsd,
      limitTokens,
      usedUsd,
      usedTokens: t.tokens,
      ratio: Math.max(limitUsd ? usedUsd / limitUsd : 0, limitTokens ? t.tokens / limitTokens : 0),
      softRatio: l.soft_ratio ?? null,
      windowStart: new Date(w.start),
      resetsAt: new Date(w.end),
      name: `${limitUsd !== null && (limitTokens === null || usedUsd / limitUsd >= t.tokens / limitTokens) ? 'usd' : 'tokens'}_per_${l.period}`,
    });
  }
  return out;
}

/** The metric names of a limit: one per amount it sets. */
export function limitNames(l: BudgetLimit): string[] {
  return [
    ...((l.usd ?? 0) > 0 ? [`usd_per_${l.period}`] : []),
    ...((l.tokens ?? 0) > 0 ? [`tokens_per_${l.period}`] : []),
  ];
}
