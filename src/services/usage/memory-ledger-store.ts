import { budgetPeriods } from '../../infra/config/budget-spec.ts';
import type { Windows } from './budget-periods.ts';
import type { LedgerStore, PeriodTotal, Reservation, RowFilter, Spent, SpendTotals } from './ledger-store.ts';
import { batchTotals, zeroSpent } from './ledger-store.ts';
import { addTo, emptyRow, measuresOf, type UsageRecord, type UsageRow } from './usage-record.ts';
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
  readonly #flags = new Map<string, number>();

  async append(
    records: UsageRecord[],
    _settled?: readonly Reservation[],
    totals?: readonly PeriodTotal[],
  ): Promise<void> {
    for (const r of records) {
      this.records.push(r);
      const id = JSON.stringify([r.day, r.key, r.model, r.provider]);
      let row = this.#rows.get(id);
      if (!row) this.#rows.set(id, (row = emptyRow(r.day, r.key, r.model, r.provider)));
      addTo(row, measuresOf(r));
    }
    for (const t of totals ?? batchTotals(records)) {
      const id = `${t.scope}\n${t.period}`;
      const was = this.#totals.get(id);
      if (was === undefined) this.#totals.set(id, { costNano: t.costNano, tokens: t.tokens });
      else {
        was.costNano += t.costNano;
        was.tokens += t.tokens;
      }
    }
  }

  async totals(scope: string, windows: Windows): Promise<Spent> {
    const out = zeroSpent();
    for (const p of budgetPeriods) {
      const t = this.#totals.get(`${scope}\n${windows[p].bucket}`);
      if (t) out[p] = { ...t };
    }
    return out;
  }

  async claimOnce(flag: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    const was = this.#flags.get(flag);
    if (was !== undefined && was > now) return false;
    this.#flags.set(flag, expiresAt);
    return true;
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
