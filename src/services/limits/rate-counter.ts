// Counters behind the per-key limits (rpm, tpm, concurrency). One interface, two drivers: memory
// for one instance, Redis when instances share a store, so a key's budget is the same whichever
// instance a request lands on (src/services/limits/redis-rate-counter.ts).

export type TakeResult = { ok: true; window: number } | { ok: false; retryAfterMs: number };

/** A held concurrency slot; release it once, when the response has ended. */
export type Slot = { release(): void };

export interface RateCounter {
  /**
   * Adds `amount` to the key's sliding window of `windowMs` if the window's total stays within
   * `limit`; `window` names the slice it went to, for a later correction.
   */
  take(key: string, amount: number, limit: number, windowMs: number): Promise<TakeResult>;
  /** Adds `amount` (negative too) to slice `window` unconditionally: a usage correction. */
  add(key: string, amount: number, windowMs: number, window: number): Promise<void>;
  /** One of `limit` concurrency slots, or undefined when all are held. */
  acquireSlot(key: string, limit: number): Promise<Slot | undefined>;
  close(): Promise<void>;
  /**
   * The same counter answering at once, when its counts are in this process (the memory driver):
   * a limit check then costs no promise, closure and microtask per request. A store across the
   * network (Redis) has none and is awaited, failing open.
   */
  readonly sync?: SyncRateCounter;
}

/** RateCounter's operations, answered synchronously; they never throw. */
export interface SyncRateCounter {
  takeNow(key: string, amount: number, limit: number, windowMs: number): TakeResult;
  addNow(key: string, amount: number, windowMs: number, window: number): void;
  acquireSlotNow(key: string, limit: number): Slot | undefined;
}

/**
 * The sliding-window estimate (two fixed windows, the previous one weighted by how much of it
 * still overlaps the last `windowMs`): constant memory per key, smooth at window edges, and one
 * atomic step in Redis. Answers whether `amount` fits and, if not, how long until it would.
 */
export function slidingWindow(
  cur: number,
  prev: number,
  elapsed: number,
  windowMs: number,
  amount: number,
  limit: number,
): { ok: true } | { ok: false; retryAfterMs: number } {
  const estimate = (prev * (windowMs - elapsed)) / windowMs + cur;
  // One answer for every take that fits (read, never changed, by the counters): no object, and no
  // context for a closure, per take (two takes a request with rpm and tpm limits).
  if (estimate + amount <= limit) return fits;
  if (amount > limit) return { ok: false, retryAfterMs: windowMs };
  // In the next window this one's count becomes the weighted previous one.
  if (cur + amount > limit)
    return wait(windowMs, windowMs - elapsed + (cur > 0 ? windowMs * (1 - (limit - amount) / cur) : 0));
  return wait(windowMs, windowMs * (1 - (limit - cur - amount) / prev) - elapsed);
}

const fits: { readonly ok: true } = Object.freeze({ ok: true });

/**
 * The estimate spreads a window's count evenly over it, so it can say "later" than a true sliding
 * window would; a wait is never announced as longer than one window.
 */
const wait = (windowMs: number, ms: number): { ok: false; retryAfterMs: number } => ({
  ok: false,
  retryAfterMs: Math.min(windowMs, Math.max(1, Math.ceil(ms))),
});
