// Where usage records go: one implementation per storage driver (memory, sqlite, redis), each
// keeping the records, daily rows per key / model / provider for the read API, and running
// totals per key and period for budgets, all updated by one batch write.
import { budgetPeriods, type BudgetPeriod, type BudgetScope } from '../../infra/config/budget-spec.ts';
import type { Windows } from './budget-periods.ts';
import { windowsOf } from './budget-periods.ts';
import { budgetTokensOf, type UsageRecord, type UsageRow } from './usage-record.ts';
import type { RequestLogStore } from './request-log.ts';

export type SpendTotals = { costNano: number; tokens: number };

/** One scope's spend in the current window of each period (src/services/usage/budget-periods.ts). */
export type Spent = Record<BudgetPeriod, SpendTotals>;

/**
 * What a scope's running totals are kept under: a key's id as it is (the totals of earlier
 * versions), a workspace's and a provider's behind a prefix no key id in use has (checked by the
 * config loader: YAML key ids cannot start with `@`, runtime ones are [A-Za-z0-9._-]).
 */
export const scopeId = (kind: BudgetScope['kind'], id: string): string => (kind === 'key' ? id : `@${kind}:${id}`);

/**
 * Scope ids of workspaces and providers by name, built once: every record counts in both, and a
 * string built per record was also hashed anew by each map it was looked up in. Names come from the
 * config; the bound only guards against a config that names very many.
 */
const workspaceScopes = new Map<string, string>();
const providerScopes = new Map<string, string>();

function cachedScope(cache: Map<string, string>, kind: 'workspace' | 'provider', id: string): string {
  let s = cache.get(id);
  if (s === undefined) {
    if (cache.size >= 10_000) cache.clear();
    cache.set(id, (s = scopeId(kind, id)));
  }
  return s;
}

/** A record counts in three scopes: its key (`r.key`), its workspace and the provider that served it. */
export const workspaceScopeOf = (r: UsageRecord): string => cachedScope(workspaceScopes, 'workspace', r.workspace);
export const providerScopeOf = (r: UsageRecord): string => cachedScope(providerScopes, 'provider', r.provider);

/**
 * What a request reserved against the budgets of its scopes before its upstream call
 * (src/services/access/budgets.ts): replaced by its record's real cost when the record is written.
 * `id` names it in a shared store (Redis), where a crashed instance's reservations expire. The
 * same amount is held in every scope it names (a provider's added when a route through it is tried).
 */
export type Reservation = { scopes: string[]; costNano: number; tokens: number; id: string; settled: boolean };

/** A shared store's reservation lives this long unless renewed: a crashed instance's expire within it. */
export const reservationTtlMs = 60_000;

/** One limit in the ledger's units (nano-dollars, tokens; 0 = none) over one period. */
export type PeriodLimit = { period: BudgetPeriod; costNano: number; tokens: number };

/** A scope's limits, checked together with the others of one admission. */
export type ScopeLimits = { scope: string; limits: readonly PeriodLimit[] };

/** True when `spent` has reached one of the limits: a request is admitted only below every one. */
export function reached(s: Readonly<Spent>, limits: readonly PeriodLimit[]): boolean {
  for (const l of limits) {
    const t = s[l.period];
    if ((l.costNano > 0 && t.costNano >= l.costNano) || (l.tokens > 0 && t.tokens >= l.tokens)) return true;
  }
  return false;
}

export const zeroSpent = (): Spent => ({
  hour: zeroTotals(),
  day: zeroTotals(),
  week: zeroTotals(),
  '30d': zeroTotals(),
  month: zeroTotals(),
});

/** Days are UTC `YYYY-MM-DD`, inclusive; `key` narrows to one key id. */
export type RowFilter = { since: string; until: string; key?: string };

export interface LedgerStore {
  /**
   * True when this process is the store's only writer (memory, sqlite): its totals change only by
   * `append`, and it answers calls in the order they were made (a `totals` includes exactly the
   * appends called before it), so the ledger reads a key's totals once and adds each batch itself.
   */
  readonly local: boolean;
  /**
   * Records per `append` call. A synchronous store (sqlite) holds the event loop for the whole
   * append, so it takes a few at a time and the ledger yields between them (src/services/usage/ledger.ts).
   */
  readonly maxAppend: number;
  /**
   * Writes the records and, in the same transaction, ends the reservations they settle (a shared
   * store's: a local store's reservations live in the process, src/services/usage/ledger.ts).
   * `totals`: the records' `batchTotals`, when the caller has them (the ledger adds them to its own
   * counts too: one computation for both). `unjournaled` (stores with a journal): how many of the
   * last records the journal could not take; the store then starts its journal's next generation.
   */
  append(
    records: UsageRecord[],
    settled: readonly Reservation[],
    totals?: readonly PeriodTotal[],
    unjournaled?: number,
  ): Promise<void>;
  /**
   * Shared stores only (`local` false): one key's totals with the live reservations of every
   * instance and this one's unwritten `pending` counted, and, when `limits` are given and none is
   * reached, `reservation` added, all in one atomic step, so two instances can never both admit
   * on the same room. `admitted` is false when a limit was reached (nothing reserved).
   */
  admit?(
    scopes: readonly ScopeLimits[],
    reservation: Reservation | undefined,
    windows: Windows,
    pending: readonly Readonly<Spent>[],
    now: number,
  ): Promise<{ admitted: boolean; spent: Spent[] }>;
  /**
   * Stores with a journal (sqlite): writes records durably and synchronously ahead of `append`, in
   * the order they will be appended; `rotate` when every journaled record has been appended;
   * `forget` journaled records that were dropped unwritten.
   */
  journal?(records: readonly UsageRecord[]): void;
  rotate?(): void;
  forget?(n: number): void;
  /** Ends reservations no record settles; extends the life of live ones (shared stores). */
  release?(reservations: readonly Reservation[]): Promise<void>;
  renew?(reservations: readonly Reservation[], now: number): Promise<void>;
  /** One scope's totals in the given windows. */
  totals(scope: string, windows: Windows): Promise<Spent>;
  /**
   * Sets `flag` unless it is set (and not expired): true for the one caller, across every
   * instance sharing the store, that set it (the soft-limit webhook's once per period).
   */
  claimOnce(flag: string, expiresAt: number): Promise<boolean>;
  rows(filter: RowFilter): Promise<UsageRow[]>;
  /** The records one by one, for GET /admin/requests (#25, src/services/usage/request-log.ts); every driver has one. */
  readonly requestLog?: RequestLogStore;
  /** Drops records and daily totals of days before `day`. */
  prune(day: string): Promise<void>;
  close(): Promise<void>;
}

export const zeroTotals = (): SpendTotals => ({ costNano: 0, tokens: 0 });

/** One scope's addition to the budget totals of one window (its bucket, budget-periods.ts; `of`: the window's period). */
export type PeriodTotal = { scope: string; period: string; of: BudgetPeriod; costNano: number; tokens: number };

/**
 * A batch's additions to the budget totals, one per scope and window: one write each. Grouped by
 * scope, then by bucket, so a record builds no string of its own (its windows are its hour's).
 */
export function batchTotals(records: readonly UsageRecord[]): PeriodTotal[] {
  const byScope = new Map<string, Map<string, PeriodTotal>>();
  const out: PeriodTotal[] = [];
  // Indexed: no iterator and result objects per record.
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const cost = r.cost_nano;
    const tokens = budgetTokensOf(r);
    // A request that cost nothing (refused, an error answer) adds nothing: no write for it.
    if (cost === 0 && tokens === 0) continue;
    const w = windowsOf(r.ts);
    // The record's three scopes, without an array per record.
    addScopeTotals(byScope, out, r.key, w, cost, tokens);
    addScopeTotals(byScope, out, workspaceScopeOf(r), w, cost, tokens);
    addScopeTotals(byScope, out, providerScopeOf(r), w, cost, tokens);
  }
  return out;
}

function addScopeTotals(
  byScope: Map<string, Map<string, PeriodTotal>>,
  out: PeriodTotal[],
  scope: string,
  w: Windows,
  cost: number,
  tokens: number,
): void {
  let periods = byScope.get(scope);
  if (periods === undefined) byScope.set(scope, (periods = new Map()));
  for (const p of budgetPeriods) {
    const bucket = w[p].bucket;
    let t = periods.get(bucket);
    if (t === undefined) {
      periods.set(bucket, (t = { scope, period: bucket, of: p, costNano: 0, tokens: 0 }));
      out.push(t);
    }
    t.costNano += cost;
    t.tokens += tokens;
  }
}

/** Audio seconds are kept as whole milliseconds so that sums stay exact. */
export const toMs = (seconds: number): number => Math.round(seconds * 1000);
