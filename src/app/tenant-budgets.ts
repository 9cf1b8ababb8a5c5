// The figures of a tenant's own view (issue #25 item 4): a key's budgets with what is used and
// left, and its spend today. The rows come from the admin API's own function over the ledger
// (src/services/access/budget-status.ts keyBudgetRows, the scopes the budget check reads), so the
// view and a refusal agree. This file is the one place that adapts the view to those rows.
import type { BudgetSpec } from '../infra/config/budget-spec.ts';
import { keyBudgetOf } from '../services/access/budgets.ts';
import { keyBudgetRows, type BudgetRow } from '../services/access/budget-status.ts';
import type { ApiKey } from '../services/auth/key-ring.ts';
import type { RequestState } from '../services/runtime/request-state.ts';
import { nanoPerUsd } from '../services/usage/prices.ts';
import { dayOf } from '../services/usage/usage-record.ts';

export type TenantBudget = {
  period: string;
  unit: 'usd' | 'tokens';
  limit: number;
  /** Null when the ledger is off (nothing is measured). */
  used: number | null;
  remaining: number | null;
  resets_at: string | null;
};

export type TenantFigures = {
  budgets: TenantBudget[];
  /** Null when the usage ledger is off. */
  today: { date: string; cost_usd: number; tokens: number } | null;
};

/** One row (a limit of the key's own budget) as the view's entries: one per amount it sets. */
function entriesOf(r: BudgetRow): TenantBudget[] {
  const out: TenantBudget[] = [];
  const of = (unit: 'usd' | 'tokens', limit: number, used: number): TenantBudget => ({
    period: r.period,
    unit,
    limit,
    used,
    remaining: Math.max(0, limit - used),
    resets_at: r.resets_at,
  });
  if (r.limit_usd !== null) out.push(of('usd', r.limit_usd, r.used_usd));
  if (r.limit_tokens !== null) out.push(of('tokens', r.limit_tokens, r.used_tokens));
  return out;
}

/** With the ledger off nothing is measured: the limits are still shown, unmeasured. */
function unmeasured(spec: BudgetSpec): TenantBudget[] {
  return spec.limits.flatMap((l) => {
    const none = { period: l.period, used: null, remaining: null, resets_at: null };
    return [
      ...(l.usd ? [{ ...none, unit: 'usd' as const, limit: l.usd }] : []),
      ...(l.tokens ? [{ ...none, unit: 'tokens' as const, limit: l.tokens }] : []),
    ];
  });
}

export async function tenantFigures(state: RequestState, key: ApiKey, now: number): Promise<TenantFigures> {
  const config = state.runtime.config;
  const ledger = state.services.ledger.of(config);
  if (!ledger) return { budgets: unmeasured(keyBudgetOf(config, key)?.spec ?? { limits: [] }), today: null };
  // The key's own budget; its workspace's is the operator's to show (GET /admin/budgets).
  const rows = (await keyBudgetRows(ledger, config, key, now)).filter((r) => r.scope.kind === 'key');
  const spent = await ledger.spent(key.id, now);
  return {
    budgets: rows.flatMap(entriesOf),
    today: { date: dayOf(now), cost_usd: spent.day.costNano / nanoPerUsd, tokens: spent.day.tokens },
  };
}
