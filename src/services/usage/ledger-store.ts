// Where usage records go: one implementation per storage driver (memory, sqlite, redis), each
// keeping the records, daily rows per key / model / provider for the read API, and running
// totals per key and period for budgets, all updated by one batch write.
import { budgetTokensOf, monthOf, type UsageRecord, type UsageRow } from './usage-record.ts';

export type SpendTotals = { costNano: number; tokens: number };

/** Days are UTC `YYYY-MM-DD`, inclusive; `key` narrows to one key id. */
export type RowFilter = { since: string; until: string; key?: string };

export interface LedgerStore {
  /** True when this process is the store's only writer (memory, sqlite): its totals change only by `append`. */
  readonly local: boolean;
  append(records: UsageRecord[]): Promise<void>;
  /** One key's totals for a UTC day (`YYYY-MM-DD`) and a month (`YYYY-MM`). */
  totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }>;
  rows(filter: RowFilter): Promise<UsageRow[]>;
  /** Drops records and daily totals of days before `day`. */
  prune(day: string): Promise<void>;
  close(): Promise<void>;
}

export const zeroTotals = (): SpendTotals => ({ costNano: 0, tokens: 0 });

/** A batch's additions to the budget totals, by key and period (`d:<day>`, `m:<month>`): one write each. */
export function batchTotals(records: UsageRecord[]): Map<string, { key: string; period: string; costNano: number; tokens: number }> {
  const out = new Map<string, { key: string; period: string; costNano: number; tokens: number }>();
  for (const r of records) {
    for (const period of [`d:${r.day}`, `m:${monthOf(r.ts)}`]) {
      const id = `${r.key}\n${period}`;
      const t = out.get(id) ?? { key: r.key, period, costNano: 0, tokens: 0 };
      t.costNano += r.cost_nano;
      t.tokens += budgetTokensOf(r);
      out.set(id, t);
    }
  }
  return out;
}

/** Audio seconds are kept as whole milliseconds so that sums stay exact. */
export const toMs = (seconds: number): number => Math.round(seconds * 1000);
