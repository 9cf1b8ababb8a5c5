// The slice memo (src/services/tokens/slice-memo.ts): bounded whatever is put in it, exact on a hit,
// and it keeps only the slices themselves, never the request text they were cut from.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { countTokens } from 'gpt-tokenizer';
import { SliceMemo, sliceMemoCapacity } from '../../../src/services/tokens/slice-memo.ts';

const plain = { disallowedSpecial: new Set<string>() };
const tokenizer = (s: string): number => countTokens(s, plain);

t.test('filled with many distinct slices, it never holds more than two generations', async (t) => {
  const memo = new SliceMemo(100);
  let largest = 0;
  for (let i = 0; i < 5000; i++) {
    memo.count(`slice number ${i} of many`, tokenizer);
    largest = Math.max(largest, memo.size);
  }
  t.ok(largest <= 200, `largest size ${largest}`);
  t.ok(largest >= 100, 'both generations are used');
});

t.test('a hit returns what the tokenizer said, and does not ask it again', async (t) => {
  const memo = new SliceMemo();
  const text = 'The gateway translates each request into one intermediate form, routes it, and encodes the answer.';
  let calls = 0;
  const spy = (s: string): number => (calls++, tokenizer(s));
  const first = memo.count(text, spy);
  const again = memo.count(text, spy);
  t.equal(first, tokenizer(text));
  t.equal(again, first);
  t.equal(calls, 1);
});

t.test('slices that are names of object properties or numbers are plain keys', async (t) => {
  const memo = new SliceMemo();
  for (const slice of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', '4294967295', '']) {
    t.equal(memo.count(slice, tokenizer), tokenizer(slice), slice);
    t.equal(
      memo.count(slice, () => -1),
      tokenizer(slice),
      `${slice}, again`,
    );
  }
});

t.test('a slice asked for again survives a generation change; one not asked for is forgotten', async (t) => {
  const memo = new SliceMemo(10);
  let calls = 0;
  const spy = (s: string): number => (calls++, s.length);
  memo.count('kept', spy);
  memo.count('dropped', spy);
  for (let i = 0; i < 9; i++) memo.count(`filler ${i}`, spy); // the young generation turns old
  memo.count('kept', spy); // a hit in the old generation moves it to the young one
  for (let i = 9; i < 20; i++) memo.count(`filler ${i}`, spy); // and again: the first old one is gone
  calls = 0;
  memo.count('kept', spy);
  t.equal(calls, 0, 'the slice asked for again is still known');
  memo.count('dropped', spy);
  t.equal(calls, 1, 'the other one was forgotten');
});

/** What filling a new memo left on the heap, in MB, after gc. */
function heapGrowth(fill: (memo: SliceMemo) => void): { memo: SliceMemo; grown: number } {
  setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  const memo = new SliceMemo();
  gc();
  const before = process.memoryUsage().heapUsed;
  fill(memo);
  gc();
  return { memo, grown: (process.memoryUsage().heapUsed - before) / 1e6 };
}

t.test('the memo does not keep the texts its slices were cut from alive', async (t) => {
  // 64 request texts of 1 MB each, 128 slices of 128 characters kept from each: kept whole, the
  // texts would be 64 MB; the slices alone are 8192 × ~300 bytes ≈ 2.5 MB.
  let x = 1;
  const word = (): string => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0; // xorshift32: text that does not repeat
    return x.toString(36);
  };
  const base = Array.from({ length: 140_000 }, word).join(' ');
  const { memo, grown } = heapGrowth((memo) => {
    for (let i = 0; i < 64; i++) {
      const body = `${i} ${base}`; // a text of its own (flattened by the first slice cut from it)
      for (let k = 0; k < 128; k++) memo.count(body.slice(k * 7919 + i * 13, k * 7919 + i * 13 + 128), (s) => s.length);
    }
  });
  t.equal(memo.size, 64 * 128, 'every slice is held');
  t.ok(grown < 16, `the heap grew by ${grown.toFixed(1)} MB`);
});

t.test(
  'the default capacity keeps the worst case (two generations of 128 two-byte characters) under 8 MB',
  async (t) => {
    const { memo, grown } = heapGrowth((memo) => {
      // Both generations full: one generation, then one short of the next.
      for (let i = 0; i < 3 * sliceMemoCapacity - 1; i++) memo.count(`中${i.toString(36)}`.padEnd(128, '文'), () => 1);
    });
    t.equal(memo.size, 2 * sliceMemoCapacity - 1);
    t.ok(grown < 8, `the heap grew by ${grown.toFixed(1)} MB`);
  },
);
