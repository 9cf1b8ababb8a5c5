// What one call of a stream's decoder or encoder hands back: items pushed one by one, taken as an
// array, in one array for the whole stream (issue #28: an array per upstream chunk or per event
// was ~56 bytes, and its backing store on the first push ~70 more).

/** A call that made nothing: one shared empty array (callers never add to a batch). */
const none: never[] = [];

export class Batch<T> {
  /**
   * Refilled call by call. Never emptied to length 0, which would drop its backing store and
   * make the next push allocate one.
   */
  readonly #items: T[] = [];
  /** Items of the call at hand, at the start of `#items`. */
  #count = 0;

  push(item: T): void {
    this.#items[this.#count++] = item;
  }

  /**
   * A call's only item, taken at once (what most calls of a stream make: a text delta's frame):
   * the same array as `push` then `take`, with less work per call.
   */
  only(item: T): T[] {
    this.#count = 0;
    const out = this.#items;
    out[0] = item;
    if (out.length !== 1) out.length = 1;
    return out;
  }

  /** Forgets what was pushed and not taken (a call that threw half-way). */
  clear(): void {
    this.#count = 0;
  }

  /**
   * The items pushed since the last take; the batch starts empty again. The array is the
   * batch's own, valid until its next `push`: callers read it at once and never add to it.
   */
  take(): T[] {
    const n = this.#count;
    if (n === 0) return none;
    this.#count = 0;
    const out = this.#items;
    // Trimmed in place (n ≥ 1): the items of a longer earlier batch past n are dropped.
    if (out.length !== n) out.length = n;
    return out;
  }
}
