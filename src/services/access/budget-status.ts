// Every budget in force with what is used of it now: GET /admin/budgets (src/app/admin-routes.ts),
// in the shape docs/admin-api.md gives (the console reads it too). Scopes: the YAML's key
// budgets, runtime keys' own (the gateway's key table, passed by the route), workspaces and
// providers.
import type { BudgetScope, BudgetSpec } from '../../infra/config/budget-spec.ts';
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { ApiKey } from '../auth/key-ring.ts';
import { budgetUses, requestScopes, scopeBudget, type ScopeBudget } from './budget-scopes.ts';

/** One limit of one scope's budget (the admin API's row). */
export type BudgetRow = {
  scope: BudgetScope;
  period: string;
  limit_usd: number | null;
  limit_tokens: number | null;
  used_usd: number;
  used_tokens: number;
  ratio: number;
  soft_ratio: number | null;
  resets_at: string;
  source: 'config' | 'runtime';
};

/** A runtime key with a budget (its id, and the budget it carries: ApiKey.budget). */
export type RuntimeKeyBudget = { id: string; budget: BudgetSpec | null | undefined };

type RuntimeSource = () => Iterable<RuntimeKeyBudget> | Promise<Iterable<RuntimeKeyBudget>>;

/**
 * Every scope with a budget: keys of the config, then runtime keys, workspaces, providers (each by
 * id). `runtime`: the gateway's own runtime keys (its key table).
 */
export async function budgetScopes(config: GatewayConfig, runtime: RuntimeSource): Promise<ScopeBudget[]> {
  const byId = <T>(o: Record<string, T>): [string, T][] => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1));
  const out: ScopeBudget[] = [];
  for (const [id, spec] of byId(config.usage.budgets)) out.push(scopeBudget({ kind: 'key', id }, spec, 'config'));
  const withBudget = [...(await runtime())]
    .filter((k) => k.budget && !(k.id in config.usage.budgets))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const k of withBudget) out.push(scopeBudget({ kind: 'key', id: k.id }, k.budget as BudgetSpec, 'runtime'));
  for (const [id, spec] of byId(config.usage.workspace_budgets))
    out.push(scopeBudget({ kind: 'workspace', id }, spec, 'config'));
  for (const [id, spec] of byId(config.usage.provider_budgets))
    out.push(scopeBudget({ kind: 'provider', id }, spec, 'config'));
  return out.filter((s) => s.limits.length > 0);
}

/** The rows of the given scopes, read from the ledger at `now` (reservations in flight included). */
export async function budgetRows(ledger: Ledger, scopes: readonly ScopeBudget[], now: number): Promise<BudgetRow[]> {
  const spent = await Promise.all(scopes.map((s) => ledger.spent(s.store, now)));
  return scopes.flatMap((s, i) =>
    budgetUses(s.spec, spent[i], now).map((u) => ({
      scope: s.scope,
      period: u.period,
      limit_usd: u.limitUsd,
      limit_tokens: u.limitTokens,
      used_usd: u.usedUsd,
      used_tokens: u.usedTokens,
      ratio: u.ratio,
      soft_ratio: u.softRatio,
      resets_at: u.resetsAt.toISOString(),
      source: s.source,
    })),
  );
}

/**
 * The budgets one key answers to (its own and its workspace's) with what is used of them: the
 * tenant's own view (GET /v1/me, issue #25 item 4) reads the same rows as the admin API.
 */
export function keyBudgetRows(ledger: Ledger, config: GatewayConfig, key: ApiKey, now: number): Promise<BudgetRow[]> {
  return budgetRows(ledger, requestScopes(config, key), now);
}
