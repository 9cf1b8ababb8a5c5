// Where usage records go: one implementation per storage driver (memory, sqlite, redis), each
// keeping the records, daily rows per key / model / provider for the read API, and running
// totals per key and period for budgets, all updated by one batch write.
import { budgetTokensOf, monthOf, type UsageRecord, type UsageRow } from './usage-record.ts';
import type { RequestLogStore } from './request-log.ts';

export type SpendTotals = { costNano: number; tokens: number };

/** One key's spend in a UTC day and its month. */
export type Spent = { day: SpendTotals; month: SpendTotals };

/**
 * What a request reserved against its key's budgets before its upstream call
 * (src/services/access/budgets.ts): replaced by its record's real cost when the record is written.
 * `id` names it in a shared store (Redis), where a crashed instance's reservations expire.
 */
export type Reservation = { key: string; costNano: number; tokens: number; id: string; settled: boolean };

/** A shared store's reservation lives this long unless renewed: a crashed instance's expire within it. */
export const reservationTtlMs = 60_000;

/** Budget limits in the ledger's units (nano-dollars, tokens); 0 = none. */
export type Limits = { costDay: number; costMonth: number; tokensDay: number; tokensMonth: number };

/** True when `spent` has reached one of the limits: a request is admitted only below every one. */
export const reached = (s: Readonly<Spent>, l: Limits): boolean =>
  (l.costDay > 0 && s.day.costNano >= l.costDay) ||
  (l.costMonth > 0 && s.month.costNano >= l.costMonth) ||
  (l.tokensDay > 0 && s.day.tokens >= l.tokensDay) ||
  (l.tokensMonth > 0 && s.month.tokens >= l.tokensMonth);

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
   */
  append(records: UsageRecord[], settled: readonly Reservation[]): Promise<void>;
  /**
   * Shared stores only (`local` false): one key's totals with the live reservations of every
   * instance and this one's unwritten `pending` counted, and, when `limits` are given and none is
   * reached, `reservation` added, all in one atomic step, so two instances can never both admit
   * on the same room. `admitted` is false when a limit was reached (nothing reserved).
   */
  admit?(
    key: string,
    reservation: Reservation | undefined,
    day: string,
    month: string,
    limits: Limits | undefined,
    pending: Readonly<Spent>,
    now: number,
  ): Promise<{ admitted: boolean; spent: Spent }>;
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
  /** One key's totals for a UTC day (`YYYY-MM-DD`) and a month (`YYYY-MM`). */
  totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }>;
  rows(filter: RowFilter): Promise<UsageRow[]>;
  /** The records one by one, for GET /admin/requests (#25, src/services/usage/request-log.ts); every driver has one. */
  readonly requestLog?: RequestLogStore;
  /** Drops records and daily totals of days before `day`. */
  prune(day: string): Promise<void>;
  close(): Promise<void>;
}

export const zeroTotals = (): SpendTotals => ({ costNano: 0, tokens: 0 });

/** One key's addition to the budget totals of one period (`d:<day>`, `m:<month>`). */
export type PeriodTotal = { key: string; period: string; costNano: number; tokens: number };

/**
 * A batch's additions to the budget totals, one per key and period: one write each. Grouped by
 * key, then by the record's day and month strings, so a record builds no string of its own.
 */
export function batchTotals(records: UsageRecord[]): PeriodTotal[] {
  const byKey = new Map<string, Map<string, PeriodTotal>>();
  const out: PeriodTotal[] = [];
  const addTo = (
    periods: Map<string, PeriodTotal>,
    key: string,
    period: string,
    prefix: string,
    r: UsageRecord,
  ): void => {
    let t = periods.get(period);
    if (t === undefined) {
      periods.set(period, (t = { key, period: prefix + period, costNano: 0, tokens: 0 }));
      out.push(t);
    }
    t.costNano += r.cost_nano;
    t.tokens += budgetTokensOf(r);
  };
  for (const r of records) {
    let periods = byKey.get(r.key);
    if (periods === undefined) byKey.set(r.key, (periods = new Map()));
    addTo(periods, r.key, r.day, 'd:', r);
    addTo(periods, r.key, monthOf(r.ts), 'm:', r);
  }
  return out;
}

/** Audio seconds are kept as whole milliseconds so that sums stay exact. */
export const toMs = (seconds: number): number => Math.round(seconds * 1000);
