// The figures of a tenant's own view (issue #25 item 4): a key's budgets with what is used and
// left, and its spend today. The numbers come from the budget check's own function
// (src/services/access/budgets.ts budgetUses) over the ledger, so the view and a refusal agree.
// This file is the one place that adapts the view to that function.
import type { BudgetSpec } from '../infra/config/budget-spec.ts';
import type { Budget } from '../infra/config/usage-config.ts';
import { budgetUses } from '../services/access/budgets.ts';
import type { ApiKey } from '../services/auth/key-ring.ts';
import type { RequestState } from '../services/runtime/request-state.ts';
import { nanoPerUsd } from '../services/usage/prices.ts';
import { dayOf } from '../services/usage/usage-record.ts';

export type TenantBudget = {
  period: string;
  unit: 'usd' | 'tokens';
  limit: number;
  /** Null where this build does not measure the period. */
  used: number | null;
  remaining: number | null;
  resets_at: string | null;
};

export type TenantFigures = {
  budgets: TenantBudget[];
  /** Null when the usage ledger is off. */
  today: { date: string; cost_usd: number; tokens: number } | null;
};

/** A runtime key's BudgetSpec in the per-day/per-month form budgetUses reads; other periods apart. */
function dayMonthOf(spec: BudgetSpec): { budget: Budget; others: TenantBudget[] } {
  const budget: Budget = {};
  const others: TenantBudget[] = [];
  for (const l of spec.limits) {
    if (l.period === 'day' || l.period === 'month') {
      if (l.usd) budget[`usd_per_${l.period}`] = l.usd;
      if (l.tokens) budget[`tokens_per_${l.period}`] = l.tokens;
      continue;
    }
    const unmeasured = { period: l.period, used: null, remaining: null, resets_at: null };
    if (l.usd) others.push({ ...unmeasured, unit: 'usd', limit: l.usd });
    if (l.tokens) others.push({ ...unmeasured, unit: 'tokens', limit: l.tokens });
  }
  return { budget, others };
}

export async function tenantFigures(state: RequestState, key: ApiKey, now: number): Promise<TenantFigures> {
  const config = state.runtime.config;
  const { budget, others } = key.budget
    ? dayMonthOf(key.budget)
    : { budget: config.usage.budgets[key.id], others: [] as TenantBudget[] };
  const ledger = state.services.ledger.of(config);
  if (!ledger) {
    return { budgets: [...(budget ? unmeasured(budget) : []), ...others], today: null };
  }
  const spent = await ledger.spent(key.id, now);
  const budgets: TenantBudget[] = budget
    ? budgetUses(budget, spent, now).map((u) => ({
        period: u.budget.endsWith('day') ? 'day' : 'month',
        unit: u.budget.startsWith('usd') ? 'usd' : 'tokens',
        limit: u.limit,
        used: u.used,
        remaining: Math.max(0, u.limit - u.used),
        resets_at: u.resetsAt.toISOString(),
      }))
    : [];
  return {
    budgets: [...budgets, ...others],
    today: { date: dayOf(now), cost_usd: spent.day.costNano / nanoPerUsd, tokens: spent.day.tokens },
  };
}

/** With the ledger off nothing is measured: the limits are still shown, unmeasured. */
function unmeasured(b: Budget): TenantBudget[] {
  const out: TenantBudget[] = [];
  for (const period of ['day', 'month'] as const)
    for (const unit of ['usd', 'tokens'] as const) {
      const limit = b[`${unit === 'usd' ? 'usd' : 'tokens'}_per_${period}` as keyof Budget];
      if (limit) out.push({ period, unit, limit, used: null, remaining: null, resets_at: null });
    }
  return out;
}
