// Budgets (docs/usage-and-tracing.md, "Budgets"): on a key, its workspace and each provider, in USD
// and tokens over any BudgetPeriod, checked before any upstream call against the ledger's running
// totals and live reservations (src/services/usage/ledger.ts). A chat request reserves its
// expected cost in its key's and workspace's budgets as it is admitted (`reserveBudget`), and in a
// provider's as a route through it is tried (`admitRoute`: a provider over budget is skipped like
// an unavailable one); its record replaces the reservation. A request over a budget gets 429 in
// its family's shape, naming the scope, the budget and the reset time, with `x-should-retry: false`.
import { GatewayError } from '../../ir/gateway-error.ts';
import { budgetRejectionsTotal, budgetUsedRatio } from '../../infra/metrics/registry.ts';
import type { RequestState } from '../runtime/request-state.ts';
import type { Reservation, Spent } from '../usage/ledger.ts';
import { StoreWaitError } from '../usage/ledger.ts';
import type { SpendTotals } from '../usage/ledger-store.ts';
import { nanoPerUsd } from '../usage/prices.ts';
import { windowOf } from '../usage/budget-periods.ts';
import { budgetUses, providerScope, requestScopes, type NamedLimit, type ScopeBudget } from './budget-scopes.ts';
import { softLimitCheck } from './budget-webhook.ts';
import { asksForWork } from './asks-for-work.ts';
import type { GatewayContext } from '../runtime/gateway-context.ts';

// What the tenant's own view and the admin API read (issue #25): a key's budget, each limit's use,
// and the rows of a key's scopes.
export { budgetUses, keyBudgetOf, type BudgetUse } from './budget-scopes.ts';
export { keyBudgetRows, type BudgetRow } from './budget-status.ts';

let warnedAt = 0;

/**
 * The gauge's values as last set, by scope and budget. Setting a labelled gauge hashes its
 * labels, and the spend grows with every request: the gauge moves when the share used has changed
 * by a thousandth or more (and at once when a budget is used up), so a scope far from its budgets
 * costs a few comparisons a request.
 */
const lastRatio = new Map<string, Map<string, number>>();
const ratioStep = 0.001;

function setUsedRatio(s: ScopeBudget, budget: string, ratio: number): void {
  let last = lastRatio.get(s.store);
  if (last === undefined) lastRatio.set(s.store, (last = new Map()));
  const was = last.get(budget);
  if (was !== undefined && ratio < 1 && was < 1 && Math.abs(ratio - was) < ratioStep) return;
  last.set(budget, ratio);
  budgetUsedRatio.set({ scope: s.scope.kind, id: s.scope.id, budget }, ratio);
}

/** Each request's reservation, settled by its record (src/app/record-usage.ts). */
const reservations = new WeakMap<object, Reservation>();

export const reservationOf = (state: object): Reservation | undefined => reservations.get(state);

/** True when a request of this key answers to a key or workspace budget. */
export const hasBudgets = (state: RequestState): boolean => requestScopes(state.runtime.config, state.key).length > 0;

/**
 * Runs after authentication (src/services/access/admit-request.ts), before rate limits and any
 * upstream call. Undefined when there is nothing to check (no budget applies): the caller then
 * awaits nothing (an async function's promise and an await per request otherwise).
 */
export function enforceBudget(ctx: GatewayContext): Promise<void> | undefined {
  const state = ctx.state;
  if (!asksForWork(ctx)) return undefined;
  const scopes = requestScopes(state.runtime.config, state.key);
  if (scopes.length === 0) return undefined;
  const ledger = state.services.ledger.of(state.runtime.config);
  if (!ledger) return undefined;
  return checkBudgets(state, scopes, ledger);
}

async function checkBudgets(
  state: RequestState,
  scopes: ReturnType<typeof requestScopes>,
  ledger: NonNullable<ReturnType<RequestState['services']['ledger']['of']>>,
): Promise<void> {
  const now = Date.now();
  for (const s of scopes) {
    let spent: Readonly<Spent>;
    try {
      spent = ledger.spentNow(s.store, now) ?? (await ledger.spent(s.store, now));
    } catch (err) {
      storeFailed(state, err, now);
      return;
    }
    checkSpent(state, s, spent, now);
  }
}

/**
 * A chat request's admission (src/families/chat/chat-handler.ts, once its model and prompt are
 * known): admitted while what its key and its workspace spent, with every request in flight's
 * reservation, is below each of their budgets, and `expected` (nano-dollars and tokens: its
 * prompt's estimate plus its output limit, priced) reserved in both in the same atomic step.
 * Otherwise 429, as `enforceBudget`.
 */
export async function reserveBudget(state: RequestState, expected: SpendTotals): Promise<void> {
  const scopes = requestScopes(state.runtime.config, state.key);
  if (scopes.length === 0) return;
  const ledger = state.services.ledger.of(state.runtime.config);
  if (!ledger) return;
  const now = Date.now();
  let a: Awaited<ReturnType<typeof ledger.reserve>>;
  try {
    a = await ledger.reserve(
      scopes.map((s) => s.asLimits),
      expected,
      now,
    );
  } catch (err) {
    storeFailed(state, err, now);
    return;
  }
  if (a.admitted) reservations.set(state, a.reservation);
  // Refuses at the first scope whose spend reached a limit (the store said one did).
  scopes.forEach((s, i) => checkSpent(state, s, a.spent[i], now));
  if (!a.admitted) refuse(state, scopes[0], a.spent[0], scopes[0].limits[0], now);
}

/**
 * Why a request's routes were skipped, for the answer when none is left: a provider budget used
 * up (429), or a provider budget that could not be checked (503, on_store_error: closed).
 */
const skipped = new WeakMap<object, { error: GatewayError; outcome: 'budget_exceeded' | 'budget_unavailable' }>();

/**
 * Before a chat route is tried: admitted when its provider has no budget, or when what the
 * provider spent (reservations included) is below each of its limits, `expected()` then reserved
 * there too (in the request's reservation, settled by its record). False when the provider is over
 * budget: the route is skipped like an unavailable one, and the next one tried. A provider with no
 * budget (or one this request already holds) is answered at once, `true` with no promise: the
 * store is asked, and awaited, only for a budget to check.
 */
export function admitRoute(
  state: RequestState,
  provider: string,
  expected: () => SpendTotals,
): boolean | Promise<boolean> {
  const config = state.runtime.config;
  const s = providerScope(config, provider);
  if (s === undefined) return true;
  const ledger = state.services.ledger.of(config);
  if (!ledger) return true;
  const held = reservations.get(state);
  if (held?.scopes.includes(s.store)) return true;
  return reserveForRoute(state, s, ledger, held, expected);
}

async function reserveForRoute(
  state: RequestState,
  s: ScopeBudget,
  ledger: NonNullable<ReturnType<RequestState['services']['ledger']['of']>>,
  held: Reservation | undefined,
  expected: () => SpendTotals,
): Promise<boolean> {
  const now = Date.now();
  let a: Awaited<ReturnType<typeof ledger.reserve>>;
  try {
    a = await ledger.reserve([s.asLimits], expected(), now, held);
  } catch (err) {
    // Not thrown: inside the route loop a 503 would count against the provider's breaker and be
    // retried. The route is skipped instead, and the request answered 503 when none is left.
    const was = state.outcome;
    try {
      storeFailed(state, err, now);
    } catch (closed) {
      // Another route may still serve it: the outcome is set only if none does (providerRefusal).
      state.outcome = was;
      skipped.set(state, { error: closed as GatewayError, outcome: 'budget_unavailable' });
      return false;
    }
    return true;
  }
  const spent = a.spent[0];
  const over = observe(state, s, spent, now);
  if (a.admitted) {
    if (held === undefined) reservations.set(state, a.reservation);
    return true;
  }
  const limit = over ?? s.limits[0];
  budgetRejectionsTotal.inc({ scope: 'provider', id: s.scope.id, budget: reachedName(limit, spent) });
  skipped.set(state, {
    error: budgetError(s, spent, limit, now, ' (every route of the model goes through a provider over its budget)'),
    outcome: 'budget_exceeded',
  });
  return false;
}

/** The answer to a request whose every route was skipped for its provider's budget; undefined otherwise. */
export function providerRefusal(state: RequestState): GatewayError | undefined {
  const k = skipped.get(state);
  if (k === undefined) return undefined;
  state.outcome = k.outcome;
  return k.error;
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

/**
 * Moves the used-ratio gauge for each limit, announces soft limits reached, and answers the first
 * limit `spent` has reached (undefined: none). Every request of a budgeted scope passes here: no
 * objects unless a soft limit is near or the request is refused.
 */
function observe(state: RequestState, s: ScopeBudget, spent: Readonly<Spent>, now: number): NamedLimit | undefined {
  let over: NamedLimit | undefined;
  for (const l of s.limits) {
    const t = spent[l.period];
    if (l.costNano > 0) setUsedRatio(s, l.usdName, t.costNano / l.costNano);
    if (l.tokens > 0) setUsedRatio(s, l.tokensName, t.tokens / l.tokens);
    if (over === undefined && ((l.costNano > 0 && t.costNano >= l.costNano) || (l.tokens > 0 && t.tokens >= l.tokens)))
      over = l;
  }
  if (s.soft && state.runtime.config.usage.budget_webhook && softReached(s, spent)) {
    const ledger = state.services.ledger.of(state.runtime.config);
    if (ledger)
      softLimitCheck(
        state.runtime.config,
        ledger,
        state.services.log,
        s.scope,
        s.store,
        budgetUses(s.spec, spent, now),
      );
  }
  return over;
}

/** Some limit's soft ratio is reached (the webhook's work, objects included, only then). */
function softReached(s: ScopeBudget, spent: Readonly<Spent>): boolean {
  for (const l of s.spec.limits) {
    if (l.soft_ratio === undefined) continue;
    const t = spent[l.period];
    const usd = (l.usd ?? 0) > 0 ? t.costNano / nanoPerUsd / (l.usd as number) : 0;
    const tokens = (l.tokens ?? 0) > 0 ? t.tokens / (l.tokens as number) : 0;
    if (Math.max(usd, tokens) >= l.soft_ratio) return true;
  }
  return false;
}

/** Refuses the request when `spent` reaches one of the scope's limits. */
function checkSpent(state: RequestState, s: ScopeBudget, spent: Readonly<Spent>, now: number): void {
  const over = observe(state, s, spent, now);
  if (over !== undefined) refuse(state, s, spent, over, now);
}

/** Which amount of a limit was reached: its metric label and the refusal's name. */
const reachedName = (l: NamedLimit, spent: Readonly<Spent>): string =>
  l.costNano > 0 && spent[l.period].costNano >= l.costNano ? l.usdName : l.tokens > 0 ? l.tokensName : l.usdName;

function refuse(state: RequestState, s: ScopeBudget, spent: Readonly<Spent>, l: NamedLimit, now: number): never {
  budgetRejectionsTotal.inc({ scope: s.scope.kind, id: s.scope.id, budget: reachedName(l, spent) });
  state.outcome = 'budget_exceeded';
  throw budgetError(s, spent, l, now, '');
}

const perPeriod = {
  hour: 'per UTC hour',
  day: 'per UTC day',
  week: 'per ISO week (UTC)',
  '30d': 'per 30-day window',
  month: 'per month',
} as const;

/**
 * 429 in the family's shape. Not retryable: the budget resets at the end of its window, so the
 * answer says `x-should-retry: false` (what Anthropic's and OpenAI's SDKs obey) and carries no
 * Retry-After (an SDK that obeys one would wait hours); the reset time is in the message.
 */
function budgetError(s: ScopeBudget, spent: Readonly<Spent>, l: NamedLimit, now: number, why: string): GatewayError {
  const name = reachedName(l, spent);
  const usd = name === l.usdName;
  const t = spent[l.period];
  const amount = (v: number): string => (usd ? `$${+v.toFixed(6)}` : `${v} tokens`);
  const used = usd ? t.costNano / nanoPerUsd : t.tokens;
  const limit = usd ? l.costNano / nanoPerUsd : l.tokens;
  const resetsAt = new Date(windowOf(l.period, now).end);
  const who = s.scope.kind === 'key' ? `API key '${s.scope.id}'` : `${s.scope.kind} '${s.scope.id}'`;
  return new GatewayError(
    'rate-limit',
    `Budget used up for ${who}${why}: ${amount(used)} of ${amount(limit)} ${perPeriod[l.period]} (${name}), requests in flight included; it resets at ${resetsAt.toISOString()}. Not retryable before then.`,
    { headers: { 'x-should-retry': 'false' } },
  );
}
