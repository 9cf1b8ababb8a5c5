// What the tokenizer said about a slice of text, so the text a client sends again (a coding CLI
// resends its system prompt and the whole conversation every turn) is not tokenized again.
// Bounded whatever clients send: only slices of at most `tokenSample.slice` characters
// (src/services/tokens/estimate-tokens.ts) are kept, never a whole message, and at most
// 2 × `capacity` of them, in two generations: when the young one reaches `capacity`
// entries it becomes the old one (the previous old one is dropped) and a new young one starts;
// a hit in the old one moves the slice to the young one, so what keeps being asked for stays.

/**
 * Entries per generation. Worst case per entry: a 128-character key of two-byte text (~272
 * bytes with its header) plus its share of the dictionary (3 fields, up to twice that while the
 * table is grown): under 400 bytes; 16,383 such entries measured 5.2 MB on Node 24 (heapUsed
 * after gc, test/services/tokens/slice-memo.test.ts). 2 generations × 8192 × 400 bytes ≈ 6.6 MB.
 */
export const sliceMemoCapacity = 8192;

/** Slice → token count; a prototype-less object, so any slice (`__proto__`, `constructor`) is a plain key. */
type Generation = { counts: Record<string, number>; size: number };
const generation = (): Generation => ({ counts: Object.create(null) as Record<string, number>, size: 0 });

export class SliceMemo {
  private young = generation();
  private old = generation();
  private readonly capacity: number;

  constructor(capacity = sliceMemoCapacity) {
    this.capacity = capacity;
  }

  /** Slices held, in both generations: never more than 2 × capacity. */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** The slice's count, from the memo, else from `count` (and then remembered). */
  count(slice: string, count: (text: string) => number): number {
    const young = this.young.counts[slice];
    if (young !== undefined) return young;
    const old = this.old.counts[slice];
    if (old !== undefined) {
      delete this.old.counts[slice];
      this.old.size--;
      this.remember(slice, old);
      return old;
    }
    const n = count(slice);
    this.remember(slice, n);
    return n;
  }

  /**
   * An object's keys are internalized: V8 keeps its own flat copy of the slice as the key, never
   * the request text the slice was cut from (test/services/tokens/slice-memo.test.ts checks the
   * heap after gc). That copy is also cheaper than a Map's key would be (a Map keeps the slice,
   * which would have to be copied first), which matters on a miss.
   */
  private remember(slice: string, n: number): void {
    this.young.counts[slice] = n;
    if (++this.young.size < this.capacity) return;
    this.old = this.young;
    this.young = generation();
  }
}
