// Per-key budgets (usage.budgets): USD and tokens per UTC day and calendar month, checked before
// any upstream call against the ledger's running totals (src/services/usage/ledger.ts). A key at or over a
// budget gets 429 in its family's shape, with the budget named and Retry-After until it resets.
import type Koa from 'koa';
import { GatewayError } from '../../ir/gateway-error.ts';
import { budgetKinds, budgetRejectionsTotal, budgetUsedRatio } from '../../infra/metrics/registry.ts';
import type { RequestState } from '../runtime/request-state.ts';
import type { Spent } from '../usage/ledger.ts';
import { nanoPerUsd } from '../usage/prices.ts';
import { dayOf } from '../usage/usage-record.ts';
import type { Budget } from '../../infra/config/usage-config.ts';

type BudgetKind = (typeof budgetKinds)[number];

/** Reads (GETs, task queries, token counting) cost nothing and stay open to a key over budget. */
const asksForWork = (ctx: Koa.Context): boolean =>
  ctx.method === 'POST' && ctx.path !== '/tune/fetch' && !ctx.path.endsWith('/count_tokens');

let warnedAt = 0;

export type BudgetUse = { budget: BudgetKind; limit: number; used: number; ratio: number; resetsAt: Date };

/** The next UTC day and month of the day last asked for: every check of a day asks for the same. */
let resets = { day: '', nextDay: new Date(0), nextMonth: new Date(0) };

function resetsOf(now: number): typeof resets {
  const day = dayOf(now);
  if (resets.day !== day) {
    const d = new Date(now);
    resets = {
      day,
      nextDay: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)),
      nextMonth: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)),
    };
  }
  return resets;
}

function usedOf(kind: BudgetKind, spent: Readonly<Spent>): number {
  switch (kind) {
    case 'usd_per_day':
      return spent.day.costNano / nanoPerUsd;
    case 'usd_per_month':
      return spent.month.costNano / nanoPerUsd;
    case 'tokens_per_day':
      return spent.day.tokens;
    case 'tokens_per_month':
      return spent.month.tokens;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** Each budget the key has, with what is used of it now (the admin API, and a request being refused). */
export function budgetUses(budget: Budget, spent: Readonly<Spent>, now: number): BudgetUse[] {
  const r = resetsOf(now);
  const out: BudgetUse[] = [];
  for (const k of budgetKinds) {
    const limit = budget[k] ?? 0;
    if (limit <= 0) continue;
    const used = usedOf(k, spent);
    out.push({ budget: k, limit, used, ratio: used / limit, resetsAt: k.endsWith('day') ? r.nextDay : r.nextMonth });
  }
  return out;
}

/**
 * The gauge's values as last set, by key and budget. Setting a labelled gauge hashes its labels,
 * and the spend grows with every request: the gauge moves when the share used has changed by a
 * thousandth or more (and at once when a budget is used up), so a key far from its budgets costs a
 * few comparisons a request.
 */
const lastRatio = new Map<string, Partial<Record<BudgetKind, number>>>();
const ratioStep = 0.001;

function setUsedRatio(key: string, budget: BudgetKind, ratio: number): void {
  let last = lastRatio.get(key);
  if (last === undefined) lastRatio.set(key, (last = {}));
  const was = last[budget];
  if (was !== undefined && ratio < 1 && was < 1 && Math.abs(ratio - was) < ratioStep) return;
  last[budget] = ratio;
  budgetUsedRatio.set({ key, budget }, ratio);
}

/** Runs after authentication (src/services/access/authenticate.ts), before rate limits and any upstream call. */
export async function enforceBudget(ctx: Koa.Context): Promise<void> {
  const state = ctx.state as RequestState;
  const budget = state.runtime.config.usage.budgets[state.key.id];
  if (!budget || !asksForWork(ctx)) return;
  const ledger = state.services.ledger.of(state.runtime.config);
  if (!ledger) return;
  const now = Date.now();
  let spent: Readonly<Spent>;
  try {
    spent = ledger.spentNow(state.key.id, now) ?? (await ledger.spent(state.key.id, now));
  } catch (err) {
    // As with rate limits (src/services/access/key-limits.ts): a store outage must not become a gateway outage.
    if (now - warnedAt > 10_000) {
      warnedAt = now;
      state.services.log.warn({ err }, 'budgets not enforced: reading the ledger failed');
    }
    return;
  }
  // Every request of a budgeted key: no objects unless it is refused.
  let overBudget: BudgetKind | undefined;
  for (const k of budgetKinds) {
    const limit = budget[k] ?? 0;
    if (limit <= 0) continue;
    const used = usedOf(k, spent);
    setUsedRatio(state.key.id, k, used / limit);
    if (overBudget === undefined && used >= limit) overBudget = k;
  }
  if (overBudget === undefined) return;
  const over = budgetUses(budget, spent, now).find((u) => u.budget === overBudget);
  if (!over) return;
  budgetRejectionsTotal.inc({ key: state.key.id, budget: over.budget });
  state.outcome = 'budget_exceeded';
  const amount = (v: number): string => (over.budget.startsWith('usd') ? `$${+v.toFixed(6)}` : `${v} tokens`);
  const per = over.budget.endsWith('day') ? 'per UTC day' : 'per month';
  throw new GatewayError(
    'rate-limit',
    `Budget used up for API key '${state.key.id}': ${amount(over.used)} of ${amount(over.limit)} ${per} (${over.budget}); it resets at ${over.resetsAt.toISOString()}.`,
    { retryAfter: Math.max(1, Math.ceil((over.resetsAt.getTime() - now) / 1000)) },
  );
}
