import { slidingWindow, type RateCounter, type Slot, type SyncRateCounter, type TakeResult } from './rate-counter.ts';

type Counts = { window: number; cur: number; prev: number };

/**
 * Limits of one instance (storage memory or sqlite): counters in this process. They answer at once
 * (`sync`): key-limits.ts checks them without a promise per check; the async methods are the same
 * answers for RateCounter's other callers.
 */
export class MemoryRateCounter implements RateCounter, SyncRateCounter {
  readonly #windows = new Map<string, Counts>();
  readonly #slots = new Map<string, number>();
  readonly #now: () => number;
  readonly sync: SyncRateCounter = this;
  /** How far into its window `now` was at the last #entry (a field: no result object per call). */
  #elapsed = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The key's counts, rolled forward to the current window; how far into it `now` is in #elapsed. */
  #entry(key: string, windowMs: number): Counts {
    const now = this.#now();
    const window = Math.floor(now / windowMs);
    let e = this.#windows.get(key);
    if (!e) this.#windows.set(key, (e = { window, cur: 0, prev: 0 }));
    if (e.window !== window) {
      e.prev = e.window === window - 1 ? e.cur : 0;
      e.cur = 0;
      e.window = window;
    }
    this.#elapsed = now - window * windowMs;
    return e;
  }

  takeNow(key: string, amount: number, limit: number, windowMs: number): TakeResult {
    const e = this.#entry(key, windowMs);
    const r = slidingWindow(e.cur, e.prev, this.#elapsed, windowMs, amount, limit);
    if (!r.ok) return r;
    e.cur += amount;
    return { ok: true, window: e.window };
  }

  addNow(key: string, amount: number, windowMs: number, window: number): void {
    const e = this.#entry(key, windowMs);
    if (e.window === window) e.cur += amount;
    else if (e.window === window + 1) e.prev += amount;
  }

  acquireSlotNow(key: string, limit: number): Slot | undefined {
    const held = this.#slots.get(key) ?? 0;
    if (held >= limit) return undefined;
    this.#slots.set(key, held + 1);
    return new HeldSlot(this.#slots, key);
  }

  async take(key: string, amount: number, limit: number, windowMs: number): Promise<TakeResult> {
    return this.takeNow(key, amount, limit, windowMs);
  }

  async add(key: string, amount: number, windowMs: number, window: number): Promise<void> {
    this.addNow(key, amount, windowMs, window);
  }

  async acquireSlot(key: string, limit: number): Promise<Slot | undefined> {
    return this.acquireSlotNow(key, limit);
  }

  async close(): Promise<void> {
    this.#windows.clear();
    this.#slots.clear();
  }
}

/** One held slot of `key`, given back once (one object, where a closure took three). */
class HeldSlot implements Slot {
  #released = false;
  readonly #slots: Map<string, number>;
  readonly #key: string;

  constructor(slots: Map<string, number>, key: string) {
    this.#slots = slots;
    this.#key = key;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    const n = (this.#slots.get(this.#key) ?? 1) - 1;
    if (n <= 0) this.#slots.delete(this.#key);
    else this.#slots.set(this.#key, n);
  }
}
