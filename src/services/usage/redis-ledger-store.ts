import type { Redis } from 'ioredis';
import type { LedgerStore, RowFilter, SpendTotals } from './ledger-store.ts';
import { batchTotals, toMs, zeroTotals } from './ledger-store.ts';
import {
  addTo,
  dayOf,
  emptyRow,
  measuresOf,
  measures,
  type Measure,
  type UsageRecord,
  type UsageRow,
} from './usage-record.ts';

// Layout (after the store's prefix, `polygate:`), every key expiring with the retention:
//   usage:rec:<day>            list of the day's records as JSON
//   usage:agg:<day>            hash "<key>\n<model>\n<provider>\n<measure>" → sum (audio in ms)
//   usage:total:<key>:d:<day>  hash {cost_nano, tokens}: a key's day, for budgets
//   usage:total:<key>:m:<mon>  the same for a calendar month
// One pipeline per batch. Counters are integers (HINCRBY), so totals from any number of
// instances add up exactly.

const dayMs = 86_400_000;

/** The `redis` driver's ledger, on the store's connection: every instance sees one set of totals. */
export class RedisLedgerStore implements LedgerStore {
  readonly local = false;
  /** One pipeline per flush: the writes are asynchronous, nothing waits on them. */
  readonly maxAppend = Number.POSITIVE_INFINITY;
  readonly #r: Redis;
  readonly #p: string;
  readonly #retentionMs: number;

  constructor(client: Redis, prefix: string, retentionDays: number) {
    this.#r = client;
    this.#p = `${prefix}usage:`;
    this.#retentionMs = (retentionDays + 1) * dayMs;
  }

  async append(records: UsageRecord[]): Promise<void> {
    const m = this.#r.pipeline();
    const touched = new Map<string, number>();
    // One HINCRBY per measure of each day, key, model and provider in the batch, not per record.
    const rows = new Map<string, UsageRow>();
    for (const r of records) {
      const rec = `${this.#p}rec:${r.day}`;
      m.rpush(rec, JSON.stringify(r));
      touched.set(rec, this.#retentionMs);
      const id = `${r.day}\n${r.key}\n${r.model}\n${r.provider}`;
      let row = rows.get(id);
      if (!row) rows.set(id, (row = emptyRow(r.day, r.key, r.model, r.provider)));
      addTo(row, measuresOf(r));
    }
    for (const row of rows.values()) {
      const agg = `${this.#p}agg:${row.day}`;
      touched.set(agg, this.#retentionMs);
      for (const name of measures) {
        const v = name === 'audio_seconds' ? toMs(row[name]) : row[name];
        if (v !== 0) m.hincrby(agg, `${row.key}\n${row.model}\n${row.provider}\n${name}`, v);
      }
    }
    for (const t of batchTotals(records)) {
      const total = `${this.#p}total:${t.key}:${t.period}`;
      m.hincrby(total, 'cost_nano', t.costNano);
      m.hincrby(total, 'tokens', t.tokens);
      touched.set(total, t.period.startsWith('d:') ? 2 * dayMs : 32 * dayMs);
    }
    for (const [k, ttl] of touched) m.pexpire(k, ttl);
    const results = await m.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }> {
    const [d, mo] = await Promise.all([
      this.#r.hmget(`${this.#p}total:${key}:d:${day}`, 'cost_nano', 'tokens'),
      this.#r.hmget(`${this.#p}total:${key}:m:${month}`, 'cost_nano', 'tokens'),
    ]);
    const parse = (v: (string | null)[]): SpendTotals =>
      v[0] === null && v[1] === null ? zeroTotals() : { costNano: Number(v[0] ?? 0), tokens: Number(v[1] ?? 0) };
    return { day: parse(d), month: parse(mo) };
  }

  async rows(f: RowFilter): Promise<UsageRow[]> {
    const days: string[] = [];
    for (let t = Date.parse(`${f.since}T00:00:00Z`); dayOf(t) <= f.until; t += dayMs) days.push(dayOf(t));
    const m = this.#r.pipeline();
    for (const d of days) m.hgetall(`${this.#p}agg:${d}`);
    const results = (await m.exec()) ?? [];
    const rows = new Map<string, UsageRow>();
    results.forEach(([err, hash], i) => {
      if (err) throw err;
      for (const [field, value] of Object.entries(hash as Record<string, string>)) {
        const [key, model, provider, measure] = field.split('\n');
        if (f.key !== undefined && key !== f.key) continue;
        const id = `${days[i]}\n${key}\n${model}\n${provider}`;
        let row = rows.get(id);
        if (!row) rows.set(id, (row = emptyRow(days[i], key, model, provider)));
        const one = Object.fromEntries(measures.map((x) => [x, 0])) as Record<Measure, number>;
        one[measure as Measure] = measure === 'audio_seconds' ? Number(value) / 1000 : Number(value);
        addTo(row, one);
      }
    });
    return [...rows.values()];
  }

  /** Keys expire by themselves with the retention. */
  async prune(): Promise<void> {}

  /** The connection belongs to the store, which closes it. */
  async close(): Promise<void> {}
}
