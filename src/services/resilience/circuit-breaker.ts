import type { BreakerConfig } from '../../infra/config/gateway-config.ts';
import { RecentOutcomes, type RecentTotals } from './recent-outcomes.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

/**
 * The right to make one call through a breaker. Settle it once: `success`, `failure`, or
 * `release` when the call ended without telling anything about the upstream (the client left,
 * the request itself was refused).
 */
export type BreakerPermit = { success(): void; failure(): void; release(): void };

type Outcome = 'success' | 'failure' | 'release';

/** A permit settled once: the first of its calls counts, later ones do nothing. */
class Permit implements BreakerPermit {
  #settled = false;
  readonly #settle: (outcome: Outcome, cfg: BreakerConfig, probe: boolean) => void;
  readonly #cfg: BreakerConfig;
  readonly #probe: boolean;

  constructor(
    settle: (outcome: Outcome, cfg: BreakerConfig, probe: boolean) => void,
    cfg: BreakerConfig,
    probe: boolean,
  ) {
    this.#settle = settle;
    this.#cfg = cfg;
    this.#probe = probe;
  }

  success(): void {
    this.#end('success');
  }

  failure(): void {
    this.#end('failure');
  }

  release(): void {
    this.#end('release');
  }

  #end(outcome: Outcome): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#settle(outcome, this.#cfg, this.#probe);
  }
}

/** Outcomes of a time window, in ten slices so old calls age out without keeping each one. */
type Slice = { start: number; calls: number; failures: number };
const slices = 10;

/**
 * One circuit breaker (per provider and upstream model): closed lets calls through and counts
 * them; a run of `consecutive_failures`, or a `failure_ratio` over at least `min_calls` calls in
 * `window_ms`, opens it. Open skips the route for `cooldown_ms`; then one probe call is let
 * through (half-open): its success closes the breaker, its failure opens it for another cool-down.
 * Settings are passed per call, so a config reload takes effect without losing the state.
 */
export class CircuitBreaker {
  #state: BreakerState = 'closed';
  #run = 0;
  #window: Slice[] = [];
  #openUntil = 0;
  #probing = false;
  readonly #now: () => number;
  readonly #onChange: (state: BreakerState, why: string) => void;
  /** Every settled call of the last minutes, whatever the state (the console's error rate). */
  readonly #recent: RecentOutcomes;

  constructor(onChange: (state: BreakerState, why: string) => void, now: () => number = Date.now) {
    this.#onChange = onChange;
    this.#now = now;
    this.#recent = new RecentOutcomes(now);
  }

  /** Calls and failures of the last five minutes (GET /admin/providers). */
  get recent(): RecentTotals {
    return this.#recent.totals();
  }

  get state(): BreakerState {
    return this.#state;
  }

  /** Milliseconds until an open breaker lets a probe through (0 when it would now). */
  get retryInMs(): number {
    return this.#state === 'open' ? Math.max(0, this.#openUntil - this.#now()) : 0;
  }

  /** A permit for one call, or undefined while the breaker skips the route. */
  acquire(cfg: BreakerConfig): BreakerPermit | undefined {
    switch (this.#state) {
      case 'closed':
        return this.#permit(cfg, false);
      case 'open':
        if (this.#now() < this.#openUntil) return undefined;
        this.#set('half_open', `cool-down of ${cfg.cooldown_ms} ms over; probing`);
        this.#probing = true;
        return this.#permit(cfg, true);
      case 'half_open':
        if (this.#probing) return undefined;
        this.#probing = true;
        return this.#permit(cfg, true);
      default: {
        const never: never = this.#state;
        return never;
      }
    }
  }

  #permit(cfg: BreakerConfig, probe: boolean): BreakerPermit {
    return new Permit(this.#settle, cfg, probe);
  }

  /** How a permit settles; one function per breaker, so a permit is one object and no closures (every upstream call takes one). */
  readonly #settle = (outcome: Outcome, cfg: BreakerConfig, probe: boolean): void => {
    if (probe) this.#probing = false;
    if (outcome === 'release') return;
    const failed = outcome === 'failure';
    this.#recent.record(failed);
    if (failed) this.#failed(cfg, probe);
    else this.#succeeded(cfg, probe);
  };

  #succeeded(cfg: BreakerConfig, probe: boolean): void {
    if (probe && this.#state === 'half_open') {
      this.#reset();
      this.#set('closed', 'probe call succeeded');
      return;
    }
    if (this.#state !== 'closed') return;
    this.#run = 0;
    this.#count(false, cfg.window_ms);
  }

  #failed(cfg: BreakerConfig, probe: boolean): void {
    if (probe && this.#state === 'half_open') return this.#open(cfg, 'probe call failed');
    // A call that started before the breaker opened and fails after tells nothing new.
    if (this.#state !== 'closed') return;
    this.#run++;
    const { calls, failures } = this.#count(true, cfg.window_ms);
    if (cfg.consecutive_failures > 0 && this.#run >= cfg.consecutive_failures)
      return this.#open(cfg, `${this.#run} failures in a row`);
    if (cfg.failure_ratio > 0 && calls >= cfg.min_calls && failures / calls >= cfg.failure_ratio) {
      return this.#open(cfg, `${failures} of ${calls} calls failed within ${cfg.window_ms} ms`);
    }
  }

  #open(cfg: BreakerConfig, why: string): void {
    this.#reset();
    this.#openUntil = this.#now() + cfg.cooldown_ms;
    this.#set('open', why);
  }

  #reset(): void {
    this.#run = 0;
    this.#window = [];
  }

  /**
   * Records one call; a failure also answers the totals of the window. Every upstream call passes
   * here, so a success only drops the slices that aged out and counts itself (no copy of the
   * window, no totals object).
   */
  #count(failed: true, windowMs: number): { calls: number; failures: number };
  #count(failed: false, windowMs: number): void;
  #count(failed: boolean, windowMs: number): { calls: number; failures: number } | void {
    const now = this.#now();
    const width = Math.max(1, Math.floor(windowMs / slices));
    const start = now - (now % width);
    const w = this.#window;
    let aged = 0;
    while (aged < w.length && w[aged].start <= now - windowMs) aged++;
    if (aged > 0) w.splice(0, aged);
    let slice = w[w.length - 1];
    if (!slice || slice.start !== start) w.push((slice = { start, calls: 0, failures: 0 }));
    slice.calls++;
    if (!failed) return;
    slice.failures++;
    let calls = 0;
    let failures = 0;
    for (const x of w) {
      calls += x.calls;
      failures += x.failures;
    }
    return { calls, failures };
  }

  #set(state: BreakerState, why: string): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#onChange(state, why);
  }
}
