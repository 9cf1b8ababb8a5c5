// The Messages stream decoder reads a text delta that is a previous one's frame around a new text
// string by parsing that string alone (adapters/shared/text-template.ts, issue #28). Its events must
// be those of parsing every frame whole: compared here with the same decoder fed the same frames
// made unmatchable (each frame's JSON with its own whitespace, which parses alike), on the fuzz
// suite's mutated recorded streams, on text deltas repeated with their text respelled, and on
// frames built to mislead it.
import fc from 'fast-check';
import t from 'tap';
import { anthropicUpstreamCodec as codec } from '../../../adapters/anthropic-messages/index.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { fuzz } from '../../fuzz/chat-fuzz.ts';
import { fixtureStreams } from '../../fuzz/fixtures.ts';
import { streams, type Frame, type Stream } from '../../fuzz/mutate-frames.ts';

const show = (events: StreamEvent[]): string =>
  JSON.stringify(events, (_k, v: unknown) => (v instanceof Error ? { error: v.message } : v));

function decode(frames: Frame[], end: boolean): string {
  const d = codec.createStreamDecoder();
  const out = frames.flatMap((f) => d.push(f));
  return show(end ? [...out, ...d.end()] : out);
}

/** Each frame with a different run of spaces after its first `{`: no two share a head, so each is parsed whole. */
const whole = (frames: Frame[]): Frame[] =>
  frames.map((f, i) => (f.data.startsWith('{') ? { ...f, data: `{${' '.repeat(i + 1)}${f.data.slice(1)}` } : f));

const recorded = [...fixtureStreams('anthropic-messages', true), ...fixtureStreams('anthropic-messages', false)];

/** A recorded stream with a text delta repeated after itself, each copy with its text (or now and then another string) respelled. */
const repeats: fc.Arbitrary<Stream> = fc
  .record({
    base: fc.constantFrom(...recorded),
    at: fc.nat(),
    copies: fc.array(
      fc.record({
        other: fc.boolean(),
        text: fc.oneof(
          fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
          fc.constantFrom(
            '"Hi"',
            '"a\\"b"',
            '"\\u0048i"',
            '"wörld 👋"',
            '5',
            '"x","text":"y"',
            ' "x" ',
            '"text_delta"',
          ),
        ),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    end: fc.boolean(),
  })
  .map(({ base, at, copies, end }) => {
    const frames = base.map((f) => ({ ...f }));
    const deltas = frames.flatMap((f, i) => (f.data.includes('"text_delta"') ? [i] : []));
    if (deltas.length === 0) return { frames, end };
    const i = deltas[at % deltas.length];
    const data = frames[i].data;
    const spans = [...data.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => [m.index, m.index + m[0].length]);
    const last = spans[spans.length - 1];
    const respelled = copies.map(({ other, text }) => {
      const [a, b] = other ? spans[text.length % spans.length] : last;
      return { ...frames[i], data: `${data.slice(0, a)}${text}${data.slice(b)}` };
    });
    frames.splice(i + 1, 0, ...respelled);
    return { frames, end };
  });

t.test('random streams: the same events as parsing every frame whole', async (t) => {
  fuzz(t, 'same events', fc.oneof(repeats, streams(recorded)), (s) => {
    const got = decode(s.frames, s.end);
    const want = decode(whole(s.frames), s.end);
    if (got !== want) throw new Error(`${got}\n≠ ${want}`);
  });
});

const delta = (text: string, index = 0, rest = ''): Frame => ({
  event: 'content_block_delta',
  data: `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta"${rest},"text":${text}}}`,
});
const start = (index: number, type = 'text'): Frame => ({
  event: 'content_block_start',
  data: `{"type":"content_block_start","index":${index},"content_block":{"type":"${type}","${type === 'text' ? 'text' : 'thinking'}":""}}`,
});
const stop = (index: number): Frame => ({
  event: 'content_block_stop',
  data: `{"type":"content_block_stop","index":${index}}`,
});

t.test('frames built to mislead the template', async (t) => {
  const cases: [string, Frame[]][] = [
    [
      'plain text, escapes, empty',
      [start(0), delta('"a"'), delta('"b \\"q\\" \\\\ \\n é 😀"'), delta('""'), delta('"c"')],
    ],
    ['a number where the text was', [start(0), delta('"a"'), delta('"b"'), delta('5')]],
    ['two values where the text was', [start(0), delta('"a"'), delta('"b"'), delta('"x","text":"y"')]],
    ['whitespace around the text', [start(0), delta('"a"'), delta('"b"'), delta(' "x" ')]],
    ['the block closed, then a delta', [start(0), delta('"a"'), delta('"b"'), stop(0), delta('"c"')]],
    ['another block, not text', [start(0), delta('"a"'), delta('"b"'), start(1, 'thinking'), delta('"c"', 1)]],
    ['another event name', [start(0), delta('"a"'), delta('"b"'), { ...delta('"c"'), event: 'message_delta' }]],
    ['no event name', [start(0), delta('"a"'), delta('"b"'), { data: delta('"c"').data }]],
    ['a duplicate text key', [start(0), delta('"a"'), delta('"b"'), delta('"c"', 0, ',"text":"d"')]],
    [
      'a text delta after the stream ended',
      [start(0), delta('"a"'), { event: 'message_stop', data: '{"type":"message_stop"}' }, delta('"b"')],
    ],
  ];
  for (const [name, frames] of cases) t.equal(decode(frames, true), decode(whole(frames), true), name);
});

t.test('a text stream is read with its texts parsed alone', async (t) => {
  const frames = [start(0), ...Array.from({ length: 20 }, (_, i) => delta(JSON.stringify(`word${i} `)))];
  const d = codec.createStreamDecoder();
  const parsed: string[] = [];
  const parse = JSON.parse;
  JSON.parse = (text: string, ...rest: []) => {
    parsed.push(text);
    return parse(text, ...rest) as unknown;
  };
  let texts: string[];
  try {
    texts = frames.flatMap((f) => d.push(f)).flatMap((e) => (e.type === 'text-delta' ? [e.text] : []));
  } finally {
    JSON.parse = parse;
  }
  t.same(
    texts,
    Array.from({ length: 20 }, (_, i) => `word${i} `),
  );
  // The block start, the first delta and the template's probe whole; then each text alone.
  t.same(
    parsed.slice(3),
    Array.from({ length: 19 }, (_, i) => JSON.stringify(`word${i + 1} `)),
  );
});
