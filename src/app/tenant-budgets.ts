// The figures of a tenant's own view (issue #25 item 4): the budgets a key answers to (its own
// and its workspace's) with what is used and left, and its spend today. The rows are the budget
// check's own (src/services/access/budget-status.ts keyBudgetRows, the ones GET /admin/budgets
// shows), so the view, the admin API and a refusal agree. This file is the one place that adapts
// the view to them.
import { keyBudgetRows } from '../services/access/budgets.ts';
import type { ApiKey } from '../services/auth/key-ring.ts';
import type { RequestState } from '../services/runtime/request-state.ts';
import { nanoPerUsd } from '../services/usage/prices.ts';
import { dayOf } from '../services/usage/usage-record.ts';

export type TenantBudget = {
  /** `key`: the key's own budget; `workspace`: its workspace's, shared with the workspace's other keys. */
  scope: 'key' | 'workspace';
  period: string;
  limit_usd: number | null;
  limit_tokens: number | null;
  used_usd: number;
  used_tokens: number;
  remaining_usd: number | null;
  remaining_tokens: number | null;
  resets_at: string;
};

export type TenantFigures = {
  budgets: TenantBudget[];
  /** Null when the usage ledger is off. */
  today: { date: string; cost_usd: number; tokens: number } | null;
};

const left = (limit: number | null, used: number): number | null => (limit === null ? null : Math.max(0, limit - used));

export async function tenantFigures(state: RequestState, key: ApiKey, now: number): Promise<TenantFigures> {
  const config = state.runtime.config;
  const ledger = state.services.ledger.of(config);
  // Budgets need the ledger (the config refuses one without the other): nothing to show without it.
  if (!ledger) return { budgets: [], today: null };
  const [rows, spent] = await Promise.all([keyBudgetRows(ledger, config, key, now), ledger.spent(key.id, now)]);
  const budgets: TenantBudget[] = [];
  for (const r of rows) {
    // requestScopes gives a key its own and its workspace's budgets; nothing else is shown to it.
    if (r.scope.kind !== 'key' && r.scope.kind !== 'workspace') continue;
    budgets.push({
      scope: r.scope.kind,
      period: r.period,
      limit_usd: r.limit_usd,
      limit_tokens: r.limit_tokens,
      used_usd: r.used_usd,
      used_tokens: r.used_tokens,
      remaining_usd: left(r.limit_usd, r.used_usd),
      remaining_tokens: left(r.limit_tokens, r.used_tokens),
      resets_at: r.resets_at,
    });
  }
  return {
    budgets,
    today: { date: dayOf(now), cost_usd: spent.day.costNano / nanoPerUsd, tokens: spent.day.tokens },
  };
}
