// The SSE reader's text of each upstream read (src/infra/upstream/utf8-reads.ts, used by
// read-sse.ts; issue #28) must be, read for read, what one streaming TextDecoder gives: a whole,
// valid read is decoded on its own, the rest by the decoder. Compared here on seeded random SSE
// streams (multi-byte text, a BOM, stray invalid bytes) cut into random reads, on random bytes
// chosen to split and break characters, and on the BOM's own edge cases.
import t from 'tap';
import { Utf8Reads } from '../../src/infra/upstream/utf8-reads.ts';
import { randomReads, randomSseBytes, seeded } from '../helpers/random-sse.ts';

/** Each read's text from the reference (one streaming TextDecoder) and from Utf8Reads. */
function both(reads: Uint8Array[]): { want: string[]; got: string[] } {
  const reference = new TextDecoder();
  const ours = new Utf8Reads();
  return {
    want: reads.map((r) => reference.decode(r, { stream: true })),
    got: reads.map((r) => ours.decode(r)),
  };
}

t.test('random SSE streams in random reads: the same text read for read', async (t) => {
  let differ = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const r = seeded(seed);
    const { want, got } = both(randomReads(r, randomSseBytes(r)));
    if (JSON.stringify(want) !== JSON.stringify(got)) differ++;
  }
  t.equal(differ, 0);
});

/** Bytes made to split and break characters: leads, continuations, ASCII, a BOM, a valid emoji. */
function hostileBytes(r: () => number): Buffer {
  const parts = [
    [0x41],
    [0x0a],
    [0xc3, 0xa9],
    [0xe6, 0x97, 0xa5],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xef, 0xbb, 0xbf],
    [0x80],
    [0xbf],
    [0xc3],
    [0xe2, 0x82],
    [0xf0, 0x9f],
    [0xff],
    [0xed, 0xa0, 0x80],
    [0xc0, 0xaf],
  ];
  const out: number[] = [];
  for (let i = Math.floor(r() * 40); i >= 0; i--) out.push(...parts[Math.floor(r() * parts.length)]);
  return Buffer.from(out);
}

t.test('random broken UTF-8 in random reads (Buffers and plain Uint8Arrays): the same text', async (t) => {
  let differ = 0;
  for (let seed = 1; seed <= 5000; seed++) {
    const r = seeded(seed);
    const reads: Uint8Array[] = randomReads(r, hostileBytes(r)).map((b) => (r() < 0.2 ? new Uint8Array(b) : b));
    const { want, got } = both(reads);
    if (JSON.stringify(want) !== JSON.stringify(got)) differ++;
  }
  t.equal(differ, 0);
});

t.test("the stream's BOM is dropped once, however the first reads cut it; a later one is text", async (t) => {
  const bom = [0xef, 0xbb, 0xbf];
  const cases: number[][][] = [
    [bom, [0x41, 0x0a], bom, [0x42]],
    [[0xef], [0xbb], [0xbf, 0x41], [...bom, 0x42]],
    [[], [0xef, 0xbb], [0xbf], [0x41], bom],
    [[0x41], bom, [0x42]],
    [[...bom, ...bom], [0x41]],
    // Text read whole before the decoder has given any (an empty first read made it), then a BOM
    // cut between reads: text, as the stream's text had begun.
    [[], [0x41], [0xef, 0xbb], [0xbf, 0x42]],
    [[0x41], [0xef], [0xbb, 0xbf], [0x42]],
  ];
  for (const c of cases) {
    const { want, got } = both(c.map((b) => Buffer.from(b)));
    t.same(got, want, JSON.stringify(c));
  }
  t.same(both([Buffer.from([...bom, 0x41]), Buffer.from([0x42])]).got, ['A', 'B']);
  t.same(both([Buffer.from([0x41]), Buffer.from([...bom, 0x42])]).got, ['A', '\ufeffB']);
  t.same(both([Buffer.from([]), Buffer.from([0x41]), Buffer.from([0xef, 0xbb]), Buffer.from([0xbf])]).got, [
    '',
    'A',
    '',
    '\ufeff',
  ]);
});
