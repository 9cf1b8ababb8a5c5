import { slidingWindow, type RateCounter, type Slot, type TakeResult } from './rate-counter.ts';

/** Limits of one instance (storage memory or sqlite): counters in this process. */
export class MemoryRateCounter implements RateCounter {
  readonly #windows = new Map<string, { window: number; cur: number; prev: number }>();
  readonly #slots = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The key's counts, rolled forward to the current window, and how far into it `now` is. */
  #entry(key: string, windowMs: number): { e: { window: number; cur: number; prev: number }; elapsed: number } {
    const now = this.#now();
    const window = Math.floor(now / windowMs);
    let e = this.#windows.get(key);
    if (!e) this.#windows.set(key, (e = { window, cur: 0, prev: 0 }));
    if (e.window !== window) {
      e.prev = e.window === window - 1 ? e.cur : 0;
      e.cur = 0;
      e.window = window;
    }
    return { e, elapsed: now - window * windowMs };
  }

  async take(key: string, amount: number, limit: number, windowMs: number): Promise<TakeResult> {
    const { e, elapsed } = this.#entry(key, windowMs);
    const r = slidingWindow(e.cur, e.prev, elapsed, windowMs, amount, limit);
    if (!r.ok) return r;
    e.cur += amount;
    return { ok: true, window: e.window };
  }

  async add(key: string, amount: number, windowMs: number, window: number): Promise<void> {
    const { e } = this.#entry(key, windowMs);
    if (e.window === window) e.cur += amount;
    else if (e.window === window + 1) e.prev += amount;
  }

  async acquireSlot(key: string, limit: number): Promise<Slot | undefined> {
    const held = this.#slots.get(key) ?? 0;
    if (held >= limit) return undefined;
    this.#slots.set(key, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const n = (this.#slots.get(key) ?? 1) - 1;
        if (n <= 0) this.#slots.delete(key);
        else this.#slots.set(key, n);
      },
    };
  }

  async close(): Promise<void> {
    this.#windows.clear();
    this.#slots.clear();
  }
}
