// Where usage records go: one implementation per storage driver (memory, sqlite, redis), each
// keeping the records, daily rows per key / model / provider for the read API, and running
// totals per key and period for budgets, all updated by one batch write.
import { budgetTokensOf, monthOf, type UsageRecord, type UsageRow } from './usage-record.ts';

export type SpendTotals = { costNano: number; tokens: number };

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
  append(records: UsageRecord[]): Promise<void>;
  /** One key's totals for a UTC day (`YYYY-MM-DD`) and a month (`YYYY-MM`). */
  totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }>;
  rows(filter: RowFilter): Promise<UsageRow[]>;
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
