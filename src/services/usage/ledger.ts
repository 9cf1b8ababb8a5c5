import type { Logger } from 'pino';
import { ledgerRecordsTotal } from '../../infra/metrics/registry.ts';
import type { LedgerStore, SpendTotals } from './ledger-store.ts';
import { budgetTokensOf, dayOf, monthOf, type UsageRecord } from './usage-record.ts';

export type LedgerOptions = { flushIntervalMs: number; batchSize: number; retentionDays: number };

/** Records kept while the store cannot take them; past this the oldest are dropped (and counted). */
const maxQueued = 100_000;
const dayMs = 86_400_000;

/**
 * The usage ledger of this process. A request's record is queued when the response ends and
 * written with others in one batch every `flushIntervalMs` (or once `batchSize` wait), so no
 * request waits on the store. Queued records count in `spent` at once, so this instance enforces
 * budgets on what it served a moment ago; other instances see it after the next flush.
 */
export class Ledger {
  readonly store: LedgerStore;
  readonly #opts: LedgerOptions;
  readonly #log: () => Logger | undefined;
  #queue: UsageRecord[] = [];
  /** Totals of records not yet in the store, by `key\nperiod`. */
  readonly #pending = new Map<string, SpendTotals>();
  /** Records still being measured (speech seconds known when the audio ends). */
  readonly #measuring = new Set<Promise<void>>();
  /** Store totals by `key\nday` (local stores only; cleared by every append). */
  readonly #stored = new Map<string, { day: SpendTotals; month: SpendTotals }>();
  #appended = 0;
  /** Builders waiting for `addSoon`'s next turn: one immediate for all the requests that ended in a turn. */
  #soon: (() => UsageRecord)[] = [];
  #flushing: Promise<void> | undefined;
  readonly #timer: NodeJS.Timeout;
  #prunedAt = 0;
  #warnedAt = 0;

  constructor(store: LedgerStore, opts: LedgerOptions, log: () => Logger | undefined) {
    this.store = store;
    this.#opts = opts;
    this.#log = log;
    this.#timer = setInterval(() => void this.flush(), opts.flushIntervalMs).unref();
  }

  add(r: UsageRecord): void {
    this.#queue.push(r);
    this.#count(r, 1);
    if (this.#queue.length > maxQueued) {
      const dropped = this.#queue.splice(0, this.#queue.length - maxQueued);
      for (const d of dropped) this.#count(d, -1);
      ledgerRecordsTotal.inc({ outcome: 'dropped' }, dropped.length);
    }
    if (this.#queue.length >= this.#opts.batchSize && !this.#flushing) void this.flush();
  }

  /** A record built on the next turn of the event loop (what the request learns last is known then); `close` waits for it. */
  addSoon(build: () => UsageRecord): void {
    if (this.#soon.push(build) === 1) setImmediate(this.#addSoonNow);
  }

  readonly #addSoonNow = (): void => {
    const builders = this.#soon;
    this.#soon = [];
    for (const build of builders) {
      try {
        this.add(build());
      } catch (err) {
        this.#log()?.error({ err }, 'usage record lost');
      }
    }
  };

  /** A record whose quantities are still being measured; `close` waits for it. */
  addLater(record: Promise<UsageRecord>): void {
    const p = record.then(
      (r) => this.add(r),
      (err: unknown) => this.#log()?.error({ err }, 'usage record lost: measuring failed'),
    );
    this.#measuring.add(p);
    void p.finally(() => this.#measuring.delete(p));
  }

  /** One key's spend this UTC day and month: the store's totals plus what waits to be written. */
  async spent(key: string, now = Date.now()): Promise<{ day: SpendTotals; month: SpendTotals }> {
    const day = dayOf(now);
    const stored = await this.#storedTotals(key, day, monthOf(now));
    return this.#withPending(key, now, stored);
  }

  /**
   * `spent` without waiting, when the store's totals are already known (a local store between two
   * appends: nearly every request); undefined when they must be read. Budgets check every request,
   * so this saves the promise round trips of the common case.
   */
  spentNow(key: string, now = Date.now()): { day: SpendTotals; month: SpendTotals } | undefined {
    if (!this.store.local) return undefined;
    const stored = this.#stored.get(`${key}\n${dayOf(now)}`);
    return stored && this.#withPending(key, now, stored);
  }

  #withPending(key: string, now: number, stored: { day: SpendTotals; month: SpendTotals }): { day: SpendTotals; month: SpendTotals } {
    const day = dayOf(now);
    const month = monthOf(now);
    const plus = (t: SpendTotals, period: string): SpendTotals => {
      const p = this.#pending.get(`${key}\n${period}`);
      return p ? { costNano: t.costNano + p.costNano, tokens: t.tokens + p.tokens } : t;
    };
    return { day: plus(stored.day, `d:${day}`), month: plus(stored.month, `m:${month}`) };
  }

  /**
   * A store only this process writes (memory, sqlite) changes only when a batch is appended, so
   * its totals are read once per key and period until then. Redis is read every time: other
   * instances add to it.
   */
  async #storedTotals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }> {
    if (!this.store.local) return this.store.totals(key, day, month);
    const id = `${key}\n${day}`;
    for (;;) {
      const cached = this.#stored.get(id);
      if (cached) return cached;
      // A batch appended while reading may or may not be in what was read: read again.
      const generation = this.#appended;
      const t = await this.store.totals(key, day, month);
      if (generation !== this.#appended) continue;
      this.#stored.set(id, t);
      return t;
    }
  }

  /** Writes what is queued, in batches; a failed batch goes back to the queue for the next try. False when a write failed. */
  async flush(): Promise<boolean> {
    while (this.#flushing) await this.#flushing.catch(() => {});
    if (this.#queue.length === 0) {
      await this.#prune();
      return true;
    }
    const batch = this.#queue.splice(0, this.#opts.batchSize * 4);
    this.#flushing = this.store.append(batch).then(
      () => {
        this.#stored.clear();
        this.#appended++;
        for (const r of batch) this.#count(r, -1);
        ledgerRecordsTotal.inc({ outcome: 'written' }, batch.length);
      },
      (err: unknown) => {
        this.#queue.unshift(...batch);
        if (Date.now() - this.#warnedAt > 10_000) {
          this.#warnedAt = Date.now();
          this.#log()?.warn({ err, queued: this.#queue.length }, 'usage ledger: writing a batch failed; it is kept and tried again');
        }
        throw err;
      },
    );
    try {
      await this.#flushing;
    } catch {
      return false;
    } finally {
      this.#flushing = undefined;
    }
    return this.#queue.length >= this.#opts.batchSize ? this.flush() : true;
  }

  /** Waits for records being measured (bounded), writes everything, stops the timer. */
  async close(waitMs = 10_000): Promise<void> {
    clearInterval(this.#timer);
    while (this.#soon.length > 0) await new Promise((r) => setImmediate(r));
    const measured = Promise.allSettled([...this.#measuring]);
    await Promise.race([measured, new Promise((r) => setTimeout(r, waitMs).unref())]);
    // A store that keeps failing must not hold the exit: a few tries, then what is left is logged.
    for (let i = 0; i < 3 && this.#queue.length > 0; i++) if (!(await this.flush())) await new Promise((r) => setTimeout(r, 200));
    if (this.#queue.length > 0) this.#log()?.error({ lost: this.#queue.length }, 'usage ledger: records could not be written before exit');
    await this.store.close();
  }

  #count(r: UsageRecord, sign: 1 | -1): void {
    const cost = sign * r.cost_nano;
    const tokens = sign * budgetTokensOf(r);
    this.#countIn(`${r.key}\nd:${r.day}`, cost, tokens);
    this.#countIn(`${r.key}\nm:${monthOf(r.ts)}`, cost, tokens);
  }

  #countIn(id: string, cost: number, tokens: number): void {
    const t = this.#pending.get(id);
    if (t === undefined) {
      if (cost !== 0 || tokens !== 0) this.#pending.set(id, { costNano: cost, tokens });
      return;
    }
    t.costNano += cost;
    t.tokens += tokens;
    if (t.costNano === 0 && t.tokens === 0) this.#pending.delete(id);
  }

  async #prune(): Promise<void> {
    const now = Date.now();
    if (now - this.#prunedAt < 3_600_000) return;
    this.#prunedAt = now;
    await this.store.prune(dayOf(now - this.#opts.retentionDays * dayMs)).catch((err: unknown) => this.#log()?.warn({ err }, 'usage ledger: pruning old records failed'));
  }
}
