import type { Logger } from 'pino';
import { ledgerRecordsTotal } from '../../infra/metrics/registry.ts';
import type { LedgerStore, SpendTotals } from './ledger-store.ts';
import { budgetTokensOf, dayOf, monthOf, type UsageRecord } from './usage-record.ts';

export type LedgerOptions = { flushIntervalMs: number; batchSize: number; retentionDays: number };

/** One key's spend in a UTC day and its month. */
export type Spent = { day: SpendTotals; month: SpendTotals };

/** Records kept while the store cannot take them; past this the oldest tenth is dropped (and counted). */
const maxQueued = 100_000;
const dayMs = 86_400_000;

/** Store totals of one key for the day last asked for (`month` is that day's). */
type Stored = { day: string; month: string; totals: Spent };

const immediate = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * The usage ledger of this process. A request's record is queued when the response ends and
 * written with others in batches every `flushIntervalMs` (or once `batchSize` wait), so no
 * request waits on the store. Queued records count in `spent` at once, so this instance enforces
 * budgets on what it served a moment ago; other instances see it after the next flush.
 *
 * This runs for every request: totals are kept by key and then by the day's or month's string
 * (`YYYY-MM-DD`, `YYYY-MM`, both cached per day in usage-record.ts), so no string is built per
 * request, and the records waiting for their next turn are queued with their builder's argument
 * rather than as a closure each.
 */
export class Ledger {
  readonly store: LedgerStore;
  readonly #opts: LedgerOptions;
  readonly #log: () => Logger | undefined;
  #queue: UsageRecord[] = [];
  /** Totals of records not yet in the store, by key, then by day or month. */
  readonly #pending = new Map<string, Map<string, SpendTotals>>();
  /** Records still being measured (speech seconds known when the audio ends). */
  readonly #measuring = new Set<Promise<void>>();
  /** Store totals by key (local stores only; kept exact by adding each appended batch). */
  readonly #stored = new Map<string, Stored>();
  /** Store reads in flight, by key and day (local stores: one per key, shared by its concurrent requests). */
  readonly #reading = new Map<string, Promise<Spent>>();
  /** Builders (and their arguments) waiting for `addSoon`'s next turn: one immediate for all the requests that ended in a turn. */
  #soon: ((arg: never) => UsageRecord)[] = [];
  #soonArgs: unknown[] = [];
  #flushing: Promise<boolean> | undefined;
  readonly #timer: NodeJS.Timeout;
  #prunedAt = 0;
  #warnedAt = 0;
  /** What `spentNow` returns, overwritten by each call. */
  readonly #now: Spent = { day: { costNano: 0, tokens: 0 }, month: { costNano: 0, tokens: 0 } };

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
      // The oldest tenth at once: a splice moves every record left, and one per record past the
      // cap made each request of an overloaded gateway pay for moving 100,000.
      const dropped = this.#queue.splice(0, this.#queue.length - maxQueued + maxQueued / 10);
      for (const d of dropped) this.#count(d, -1);
      ledgerRecordsTotal.inc({ outcome: 'dropped' }, dropped.length);
    }
    if (this.#queue.length >= this.#opts.batchSize && !this.#flushing) void this.flush();
  }

  /** `build(arg)`'s record, built on the next turn of the event loop (what the request learns last is known then); `close` waits for it. */
  addSoon<T>(build: (arg: T) => UsageRecord, arg: T): void {
    this.#soonArgs.push(arg);
    if (this.#soon.push(build) === 1) setImmediate(this.#addSoonNow);
  }

  readonly #addSoonNow = (): void => {
    const builders = this.#soon;
    const args = this.#soonArgs;
    this.#soon = [];
    this.#soonArgs = [];
    for (let i = 0; i < builders.length; i++) {
      try {
        this.add(builders[i](args[i] as never));
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
  async spent(key: string, now = Date.now()): Promise<Spent> {
    const day = dayOf(now);
    const month = monthOf(now);
    const stored = await this.#storedTotals(key, day, month);
    return this.#withPending(key, day, month, stored, {
      day: { costNano: 0, tokens: 0 },
      month: { costNano: 0, tokens: 0 },
    });
  }

  /**
   * `spent` without waiting, when the store's totals are already known (a local store: nearly
   * every request); undefined when they must be read. Budgets check every request, so this saves
   * the promise round trips of the common case. The answer is valid until the next call.
   */
  spentNow(key: string, now = Date.now()): Readonly<Spent> | undefined {
    if (!this.store.local) return undefined;
    const stored = this.#stored.get(key);
    const day = dayOf(now);
    return stored?.day === day ? this.#withPending(key, day, stored.month, stored.totals, this.#now) : undefined;
  }

  #withPending(key: string, day: string, month: string, stored: Spent, into: Spent): Spent {
    const p = this.#pending.get(key);
    const d = p?.get(day);
    const m = p?.get(month);
    into.day.costNano = stored.day.costNano + (d?.costNano ?? 0);
    into.day.tokens = stored.day.tokens + (d?.tokens ?? 0);
    into.month.costNano = stored.month.costNano + (m?.costNano ?? 0);
    into.month.tokens = stored.month.tokens + (m?.tokens ?? 0);
    return into;
  }

  /**
   * A store only this process writes (memory, sqlite) changes only when a batch is appended, so
   * its totals are read once per key and day, and each appended batch is added to them. Such a
   * store answers calls in the order they were made (LedgerStore.local), so a read includes exactly
   * the batches appended before it was asked for, whose completions (`#addStored`) ran before its
   * answer: what it returns is exact as it stands, and later batches are added to it as they
   * complete. Concurrent readers of one key share one read. Redis is read every time: other
   * instances add to it.
   */
  async #storedTotals(key: string, day: string, month: string): Promise<Spent> {
    if (!this.store.local) return this.store.totals(key, day, month);
    const cached = this.#stored.get(key);
    if (cached?.day === day) return cached.totals;
    const readKey = `${key}\n${day}`;
    let reading = this.#reading.get(readKey);
    if (reading === undefined) {
      reading = this.store.totals(key, day, month).then(
        (totals) => {
          this.#reading.delete(readKey);
          this.#stored.set(key, { day, month, totals });
          return totals;
        },
        (err: unknown) => {
          this.#reading.delete(readKey);
          throw err;
        },
      );
      this.#reading.set(readKey, reading);
    }
    return reading;
  }

  /**
   * Writes what is queued, up to `batchSize` × 4 records a call (then again while a batch waits),
   * in appends of at most the store's `maxAppend` records with a turn of the event loop between
   * them: a synchronous store (sqlite) then never holds the requests for more than one small
   * transaction. A failed append goes back to the queue for the next try. False when a write failed.
   */
  async flush(): Promise<boolean> {
    while (this.#flushing) await this.#flushing;
    if (this.#queue.length === 0) {
      await this.#prune();
      return true;
    }
    this.#flushing = this.#write(this.#opts.batchSize * 4);
    let ok: boolean;
    try {
      ok = await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
    return ok && this.#queue.length >= this.#opts.batchSize ? this.flush() : ok;
  }

  async #write(limit: number): Promise<boolean> {
    for (let left = limit; left > 0 && this.#queue.length > 0;) {
      const batch = this.#queue.splice(0, Math.min(left, this.store.maxAppend));
      left -= batch.length;
      try {
        await this.store.append(batch);
      } catch (err) {
        this.#queue.unshift(...batch);
        if (Date.now() - this.#warnedAt > 10_000) {
          this.#warnedAt = Date.now();
          this.#log()?.warn(
            { err, queued: this.#queue.length },
            'usage ledger: writing a batch failed; it is kept and tried again',
          );
        }
        return false;
      }
      for (const r of batch) {
        this.#count(r, -1);
        this.#addStored(r);
      }
      ledgerRecordsTotal.inc({ outcome: 'written' }, batch.length);
      if (left > 0 && this.#queue.length > 0) await immediate();
    }
    return true;
  }

  /** Waits for records being measured (bounded), writes everything, stops the timer. */
  async close(waitMs = 10_000): Promise<void> {
    clearInterval(this.#timer);
    while (this.#soon.length > 0) await immediate();
    const measured = Promise.allSettled([...this.#measuring]);
    await Promise.race([measured, new Promise((r) => setTimeout(r, waitMs).unref())]);
    // A store that keeps failing must not hold the exit: a few tries, then what is left is logged.
    for (let i = 0; i < 3 && this.#queue.length > 0; i++)
      if (!(await this.flush())) await new Promise((r) => setTimeout(r, 200));
    if (this.#queue.length > 0)
      this.#log()?.error({ lost: this.#queue.length }, 'usage ledger: records could not be written before exit');
    await this.store.close();
  }

  #count(r: UsageRecord, sign: 1 | -1): void {
    const cost = sign * r.cost_nano;
    const tokens = sign * budgetTokensOf(r);
    if (cost === 0 && tokens === 0) return;
    let periods = this.#pending.get(r.key);
    if (periods === undefined) this.#pending.set(r.key, (periods = new Map()));
    countIn(periods, r.day, cost, tokens);
    countIn(periods, monthOf(r.ts), cost, tokens);
    if (periods.size === 0) this.#pending.delete(r.key);
  }

  /** An appended record into the cached store totals of its key (what the store itself added). */
  #addStored(r: UsageRecord): void {
    const s = this.#stored.get(r.key);
    if (s === undefined) return;
    const tokens = budgetTokensOf(r);
    if (s.day === r.day) {
      s.totals.day.costNano += r.cost_nano;
      s.totals.day.tokens += tokens;
    }
    if (s.month === monthOf(r.ts)) {
      s.totals.month.costNano += r.cost_nano;
      s.totals.month.tokens += tokens;
    }
  }

  async #prune(): Promise<void> {
    const now = Date.now();
    if (now - this.#prunedAt < 3_600_000) return;
    this.#prunedAt = now;
    await this.store
      .prune(dayOf(now - this.#opts.retentionDays * dayMs))
      .catch((err: unknown) => this.#log()?.warn({ err }, 'usage ledger: pruning old records failed'));
  }
}

/** Adds to one period's pending totals; a period back at zero is forgotten. */
function countIn(periods: Map<string, SpendTotals>, period: string, cost: number, tokens: number): void {
  const t = periods.get(period);
  if (t === undefined) {
    periods.set(period, { costNano: cost, tokens });
    return;
  }
  t.costNano += cost;
  t.tokens += tokens;
  if (t.costNano === 0 && t.tokens === 0) periods.delete(period);
}
