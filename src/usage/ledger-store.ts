// Where usage records go: one implementation per storage driver (memory, sqlite, redis), each
// keeping the records, daily rows per key / model / provider for the read API, and running
// totals per key and period for budgets, all updated by one batch write.
import type { UsageRecord, UsageRow } from './usage-record.ts';

export type SpendTotals = { costNano: number; tokens: number };

/** Days are UTC `YYYY-MM-DD`, inclusive; `key` narrows to one key id. */
export type RowFilter = { since: string; until: string; key?: string };

export interface LedgerStore {
  append(records: UsageRecord[]): Promise<void>;
  /** One key's totals for a UTC day (`YYYY-MM-DD`) and a month (`YYYY-MM`). */
  totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }>;
  rows(filter: RowFilter): Promise<UsageRow[]>;
  /** Drops records and daily totals of days before `day`. */
  prune(day: string): Promise<void>;
  close(): Promise<void>;
}

export const zeroTotals = (): SpendTotals => ({ costNano: 0, tokens: 0 });

/** Audio seconds are kept as whole milliseconds so that sums stay exact. */
export const toMs = (seconds: number): number => Math.round(seconds * 1000);
