import type { LedgerStore, RowFilter, SpendTotals } from './ledger-store.ts';
import { zeroTotals } from './ledger-store.ts';
import {
  addTo,
  budgetTokensOf,
  emptyRow,
  measuresOf,
  monthOf,
  type UsageRecord,
  type UsageRow,
} from './usage-record.ts';
import { MemoryRequestLog } from './memory-request-log.ts';

/** The `memory` driver's ledger: for tests and single runs; gone when the process ends. */
export class MemoryLedgerStore implements LedgerStore {
  readonly local = true;
  readonly maxAppend = Number.POSITIVE_INFINITY;
  readonly records: UsageRecord[] = [];
  readonly #rows = new Map<string, UsageRow>();
  readonly #totals = new Map<string, SpendTotals>();
  /** GET /admin/requests (#25): reads `records`. */
  readonly requestLog = new MemoryRequestLog(this.records);

  async append(records: UsageRecord[]): Promise<void> {
    for (const r of records) {
      this.records.push(r);
      const id = JSON.stringify([r.day, r.key, r.model, r.provider]);
      let row = this.#rows.get(id);
      if (!row) this.#rows.set(id, (row = emptyRow(r.day, r.key, r.model, r.provider)));
      addTo(row, measuresOf(r));
      for (const period of [`d:${r.day}`, `m:${monthOf(r.ts)}`]) {
        const t = this.#totals.get(`${r.key}\n${period}`) ?? zeroTotals();
        t.costNano += r.cost_nano;
        t.tokens += budgetTokensOf(r);
        this.#totals.set(`${r.key}\n${period}`, t);
      }
    }
  }

  async totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }> {
    return {
      day: { ...(this.#totals.get(`${key}\nd:${day}`) ?? zeroTotals()) },
      month: { ...(this.#totals.get(`${key}\nm:${month}`) ?? zeroTotals()) },
    };
  }

  async rows(f: RowFilter): Promise<UsageRow[]> {
    return [...this.#rows.values()]
      .filter((r) => r.day >= f.since && r.day <= f.until && (f.key === undefined || r.key === f.key))
      .map((r) => ({ ...r }));
  }

  async prune(day: string): Promise<void> {
    for (const [id, r] of this.#rows) if (r.day < day) this.#rows.delete(id);
    for (const id of this.#totals.keys()) if (id.includes('\nd:') && id.split('\nd:')[1] < day) this.#totals.delete(id);
    const keep = this.records.filter((r) => r.day >= day);
    this.records.splice(0, this.records.length, ...keep);
    this.requestLog.prune(day);
  }

  async close(): Promise<void> {}
}
