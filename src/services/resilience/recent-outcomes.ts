// What an operator reads as a route's "recent error rate" (the console's providers page,
// GET /admin/providers): calls and failures over the last five minutes, in ten slices so old
// calls age out without keeping each one. Apart from the breaker's own window, which a breaker
// empties when it opens and sizes by its config: this one keeps counting through an outage.

const windowMs = 5 * 60_000;
const slices = 10;
const width = windowMs / slices;

type Slice = { start: number; calls: number; failures: number };

export type RecentTotals = { calls: number; failures: number; window_seconds: number };

export class RecentOutcomes {
  readonly #window: Slice[] = [];
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  record(failed: boolean): void {
    const now = this.#now();
    this.#age(now);
    const start = now - (now % width);
    let slice = this.#window[this.#window.length - 1];
    if (!slice || slice.start !== start) this.#window.push((slice = { start, calls: 0, failures: 0 }));
    slice.calls++;
    if (failed) slice.failures++;
  }

  totals(): RecentTotals {
    this.#age(this.#now());
    let calls = 0;
    let failures = 0;
    for (const s of this.#window) {
      calls += s.calls;
      failures += s.failures;
    }
    return { calls, failures, window_seconds: windowMs / 1000 };
  }

  #age(now: number): void {
    let aged = 0;
    while (aged < this.#window.length && this.#window[aged].start <= now - windowMs) aged++;
    if (aged > 0) this.#window.splice(0, aged);
  }
}
