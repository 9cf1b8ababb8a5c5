// The budget reservations of one ledger (src/services/usage/ledger.ts, docs/usage-and-tracing.md):
// for a local store (memory, sqlite) their sums live here and count in the key's spend; for a shared
// one (Redis) they live in the store, and here are the ones this instance holds, renewed while their
// requests run and ended in the same MULTI as the records that settle them.
import { randomUUID } from 'node:crypto';
import { reservationTtlMs, type LedgerStore, type Reservation, type SpendTotals } from './ledger-store.ts';
import type { UsageRecord } from './usage-record.ts';

export class LedgerReservations {
  readonly #store: LedgerStore;
  /** Local stores: what live reservations hold, by scope. */
  readonly #held = new Map<string, SpendTotals>();
  /** Shared stores: live reservations of this instance. */
  readonly #live = new Set<Reservation>();
  /** Queued records that end a shared store's reservation when written. */
  readonly #settles = new Map<UsageRecord, Reservation>();
  readonly #instance = randomUUID().slice(0, 8);
  #seq = 0;
  #renewedAt = 0;

  constructor(store: LedgerStore) {
    this.#store = store;
  }

  /** A new reservation of `amount` in `scopes`, named uniquely across instances. */
  create(scopes: string[], amount: SpendTotals): Reservation {
    return {
      scopes,
      costNano: amount.costNano,
      tokens: amount.tokens,
      id: `${this.#instance}.${++this.#seq}`,
      settled: false,
    };
  }

  /** What a scope's live reservations hold (local stores). */
  heldOf(scope: string): SpendTotals | undefined {
    return this.#held.get(scope);
  }

  /** Counts a reservation (local) or tracks it for renewal (shared) from now on. */
  hold(r: Reservation): void {
    if (this.#store.local) this.#add(r, r.scopes, 1);
    else this.#live.add(r);
  }

  /** A held reservation now holds its amount in `more` scopes too (a provider's, as its route is tried). */
  extend(r: Reservation, more: readonly string[]): void {
    r.scopes.push(...more);
    if (this.#store.local) this.#add(r, more, 1);
  }

  /** A shared store refused it: nothing was reserved there. */
  forgetLive(r: Reservation): void {
    r.settled = true;
    this.#live.delete(r);
  }

  /** Ends a reservation that no record settles. */
  release(r: Reservation): void {
    if (r.settled) return;
    r.settled = true;
    if (this.#store.local) {
      this.#add(r, r.scopes, -1);
      return;
    }
    this.#live.delete(r);
    void this.#store.release?.([r]).catch(() => {
      // It expires with its TTL (reservationTtlMs).
    });
  }

  /** `record` replaces `r`: at once in a local store, when the record is written in a shared one. */
  settle(record: UsageRecord, r: Reservation): void {
    if (r.settled) return;
    if (this.#store.local) {
      this.release(r);
      return;
    }
    r.settled = true;
    this.#settles.set(record, r);
  }

  /** The reservations a batch of records ends (its store append ends them with it). */
  settledBy(batch: readonly UsageRecord[]): Reservation[] {
    const out: Reservation[] = [];
    if (this.#settles.size === 0) return out;
    for (const r of batch) {
      const s = this.#settles.get(r);
      if (s !== undefined) out.push(s);
    }
    return out;
  }

  /** Records written or dropped: their reservations are no longer this instance's to renew. */
  forget(records: readonly UsageRecord[]): void {
    if (this.#settles.size === 0) return;
    for (const r of records) {
      const s = this.#settles.get(r);
      if (s === undefined) continue;
      this.#settles.delete(r);
      this.#live.delete(s);
    }
  }

  /** Shared stores: live reservations outlive their TTL while their requests run (called every flush interval). */
  renew(): void {
    const now = Date.now();
    if (this.#live.size === 0 || !this.#store.renew || now - this.#renewedAt < reservationTtlMs / 3) return;
    this.#renewedAt = now;
    void this.#store.renew([...this.#live], now).catch(() => {});
  }

  #add(r: Reservation, scopes: readonly string[], sign: 1 | -1): void {
    for (const scope of scopes) {
      let t = this.#held.get(scope);
      if (t === undefined) this.#held.set(scope, (t = { costNano: 0, tokens: 0 }));
      t.costNano += sign * r.costNano;
      t.tokens += sign * r.tokens;
      if (t.costNano === 0 && t.tokens === 0) this.#held.delete(scope);
    }
  }
}
