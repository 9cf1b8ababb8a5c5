// Per-key budgets (usage.budgets): USD and tokens per UTC day and calendar month, checked before
// any upstream call against the ledger's running totals and live reservations
// (src/services/usage/ledger.ts). A chat request reserves its expected cost as it is admitted
// (`reserveBudget`); its record replaces the reservation. A key at or over a budget gets 429 in its
// family's shape, with the budget named, the reset time, and `x-should-retry: false`.
import type Koa from 'koa';
import { GatewayError } from '../../ir/gateway-error.ts';
import { budgetKinds, budgetRejectionsTotal, budgetUsedRatio } from '../../infra/metrics/registry.ts';
import type { RequestState } from '../runtime/request-state.ts';
import type { Limits, Reservation, Spent } from '../usage/ledger.ts';
import { StoreWaitError } from '../usage/ledger.ts';
import { nanoPerUsd } from '../usage/prices.ts';
import { dayOf } from '../usage/usage-record.ts';
import type { Budget } from '../../infra/config/usage-config.ts';
import { asksForWork } from './asks-for-work.ts';

type BudgetKind = (typeof budgetKinds)[number];

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

/** A budget's limits in the ledger's units. */
export function limitsOf(budget: Budget): Limits {
  return {
    costDay: Math.round((budget.usd_per_day ?? 0) * nanoPerUsd),
    costMonth: Math.round((budget.usd_per_month ?? 0) * nanoPerUsd),
    tokensDay: budget.tokens_per_day ?? 0,
    tokensMonth: budget.tokens_per_month ?? 0,
  };
}

/** Each request's reservation, settled by its record (src/app/record-usage.ts). */
const reservations = new WeakMap<object, Reservation>();

export const reservationOf = (state: object): Reservation | undefined => reservations.get(state);

/** Runs after authentication (src/services/access/admit-request.ts), before rate limits and any upstream call. */
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
    storeFailed(state, err, now);
    return;
  }
  checkSpent(state, budget, spent, now);
}

/**
 * A chat request's admission (src/families/chat/chat-handler.ts, once its model and prompt are
 * known): admitted while what its key spent, with every request in flight's reservation, is below
 * each budget, and `expected` (nano-dollars and tokens: its prompt's estimate plus its output limit,
 * priced) reserved in the same atomic step. Otherwise 429, as `enforceBudget`.
 */
export async function reserveBudget(
  state: RequestState,
  expected: { costNano: number; tokens: number },
): Promise<void> {
  const budget = state.runtime.config.usage.budgets[state.key.id];
  if (!budget) return;
  const ledger = state.services.ledger.of(state.runtime.config);
  if (!ledger) return;
  const now = Date.now();
  let a: Awaited<ReturnType<typeof ledger.reserve>>;
  try {
    a = await ledger.reserve(state.key.id, expected, limitsOf(budget), now);
  } catch (err) {
    storeFailed(state, err, now);
    return;
  }
  if (a.admitted) {
    reservations.set(state, a.reservation);
    return;
  }
  checkSpent(state, budget, a.spent, now);
  // The store said a limit is reached; the spend it answered says which.
  refuse(state, budget, a.spent, budgetKinds.find((k) => (budget[k] ?? 0) > 0) ?? 'usd_per_day', now);
}

/**
 * The store did not answer (in usage.store_wait_ms): `on_store_error: closed` refuses the request
 * (503, the spend cannot be known), `open` serves it unchecked. Logged at most every 10 s.
 */
function storeFailed(state: RequestState, err: unknown, now: number): void {
  const closed = state.runtime.config.usage.on_store_error === 'closed';
  if (now - warnedAt > 10_000) {
    warnedAt = now;
    state.services.log.warn(
      { err },
      closed
        ? 'budgets: the usage store cannot be read; budgeted keys are refused'
        : 'budgets not enforced: the usage store cannot be read',
    );
  }
  if (!closed) return;
  state.outcome = 'budget_unavailable';
  throw new GatewayError(
    'unavailable',
    `Budgets of API key '${state.key.id}' cannot be checked: the usage store ${err instanceof StoreWaitError ? 'did not answer in time' : 'failed'}; try again shortly.`,
    { retryAfter: 1 },
  );
}

/** Refuses the request when `spent` reaches one of the key's budgets (and moves the used-ratio gauge). */
function checkSpent(state: RequestState, budget: Budget, spent: Readonly<Spent>, now: number): void {
  // Every request of a budgeted key: no objects unless it is refused.
  let overBudget: BudgetKind | undefined;
  for (const k of budgetKinds) {
    const limit = budget[k] ?? 0;
    if (limit <= 0) continue;
    const used = usedOf(k, spent);
    setUsedRatio(state.key.id, k, used / limit);
    if (overBudget === undefined && used >= limit) overBudget = k;
  }
  if (overBudget !== undefined) refuse(state, budget, spent, overBudget, now);
}

/**
 * 429 in the family's shape. Not retryable: the budget resets at the next UTC day or month, so the
 * answer says `x-should-retry: false` (what Anthropic's and OpenAI's SDKs obey) and carries no
 * Retry-After (an SDK that obeys one would wait hours); the reset time is in the message.
 */
function refuse(state: RequestState, budget: Budget, spent: Readonly<Spent>, kind: BudgetKind, now: number): never {
  const over = budgetUses(budget, spent, now).find((u) => u.budget === kind);
  const limit = over?.limit ?? 0;
  const used = over?.used ?? 0;
  const resetsAt = over?.resetsAt ?? resetsOf(now).nextDay;
  budgetRejectionsTotal.inc({ key: state.key.id, budget: kind });
  state.outcome = 'budget_exceeded';
  const amount = (v: number): string => (kind.startsWith('usd') ? `$${+v.toFixed(6)}` : `${v} tokens`);
  const per = kind.endsWith('day') ? 'per UTC day' : 'per month';
  throw new GatewayError(
    'rate-limit',
    `Budget used up for API key '${state.key.id}': ${amount(used)} of ${amount(limit)} ${per} (${kind}), requests in flight included; it resets at ${resetsAt.toISOString()}. Not retryable before then.`,
    { headers: { 'x-should-retry': 'false' } },
  );
}
