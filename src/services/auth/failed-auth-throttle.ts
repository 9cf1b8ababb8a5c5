// Online guessing of the admin token (the admin API's Bearer, the console's sign-in form): an
// operator may choose a short token, and every wrong guess cost the guesser one request. Past
// `limit` wrong tokens from one address in a window, that address is refused before its token is
// compared until the window ends (a 429 naming the wait). A right token does not lift a refusal
// already in force (it is not compared): only a right token in a window not refused resets the count.

export type AuthThrottleOptions = { windowMs: number; maxAddresses: number };

const defaults: AuthThrottleOptions = { windowMs: 60_000, maxAddresses: 10_000 };

type Entry = { failures: number; resetAt: number };

export class FailedAuthThrottle {
  readonly #o: AuthThrottleOptions;
  /** By address, oldest window first; bounded: a flood of addresses drops the oldest windows. */
  readonly #seen = new Map<string, Entry>();

  constructor(opts: Partial<AuthThrottleOptions> = {}) {
    this.#o = { ...defaults, ...opts };
  }

  /** Seconds (rounded up) before `address` may present a token again, past `limit` wrong ones a window; 0 when it may now. */
  waitSeconds(address: string, limit: number, now = Date.now()): number {
    const e = this.#seen.get(address);
    if (e === undefined) return 0;
    if (now >= e.resetAt) {
      this.#seen.delete(address);
      return 0;
    }
    return e.failures >= limit ? Math.ceil((e.resetAt - now) / 1000) : 0;
  }

  /** A wrong token from `address`. */
  failed(address: string, now = Date.now()): void {
    const e = this.#seen.get(address);
    if (e !== undefined && now < e.resetAt) {
      e.failures++;
      return;
    }
    this.#seen.delete(address);
    if (this.#seen.size >= this.#o.maxAddresses) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(address, { failures: 1, resetAt: now + this.#o.windowMs });
  }

  /** A right token: the address's count of wrong ones starts again. */
  succeeded(address: string): void {
    this.#seen.delete(address);
  }

  get size(): number {
    return this.#seen.size;
  }
}
