// What the tokenizer said about a slice of text, so the text a client sends again (a coding CLI
// resends its system prompt and the whole conversation every turn) is not tokenized again.
// Bounded whatever clients send: only slices of at most `tokenSample.slice` characters
// (src/services/tokens/estimate-tokens.ts) are kept, never a whole message, and at most
// 2 × `capacity` of them, in two generations of Map: when the young one reaches `capacity`
// entries it becomes the old one (the previous old one is dropped) and a new young one starts;
// a hit in the old one moves the slice to the young one, so what keeps being asked for stays.

/**
 * Entries per generation. Worst case per entry: a 128-character key of two-byte text (~290
 * bytes with its header and the slice header pointing at it) plus the Map's entry and bucket
 * share (~30 bytes, up to twice that while a table is grown): about 400 bytes, which is what
 * 20,000 entries of random two-byte text measured on Node 24 (heapUsed after gc). 2 generations
 * × 8192 entries × ~400 bytes ≈ 6.6 MB at most.
 */
export const sliceMemoCapacity = 8192;

export class SliceMemo {
  private young = new Map<string, number>();
  private old = new Map<string, number>();
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
    const young = this.young.get(slice);
    if (young !== undefined) return young;
    const old = this.old.get(slice);
    if (old !== undefined) {
      this.old.delete(slice);
      this.remember(slice, old);
      return old;
    }
    const n = count(slice);
    this.remember(slice, n);
    return n;
  }

  private remember(slice: string, n: number): void {
    this.young.set(ownCopy(slice), n);
    if (this.young.size < this.capacity) return;
    this.old = this.young;
    this.young = new Map();
  }
}

/**
 * A slice of a long string is, in V8, a view that keeps the whole string alive: kept as a key,
 * it would hold every request body it came from. Concatenating and slicing again makes V8
 * flatten the slice into a string of its own (slice length + 1 characters), so the key holds
 * only itself (test/services/tokens/slice-memo.test.ts checks the heap after gc).
 */
function ownCopy(slice: string): string {
  return (slice + '\0').slice(0, -1);
}
