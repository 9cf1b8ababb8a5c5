// The relay's usage tap reads repeated text frames without the decoder (src/families/chat/relay-text-frames.ts):
// what it learns must be exactly what the decoder would have said. Differential, on random streams
// of both relayed stream formats that opt in (Messages, Chat Completions): the recorded fixtures
// mutated, and frames repeated with one JSON string respelled (plain, escaped, broken, or equal to
// another member's value); frame by frame the events, and byte by byte (random splits, cuts, with
// and without the end) the meter's bill and the finish the relay holds the last chunk for.
import fc from 'fast-check';
import t from 'tap';
import { anthropicUpstreamCodec } from '../../adapters/anthropic-messages/index.ts';
import { openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import type { ChatUpstreamCodec, UpstreamStreamDecoder } from '../../adapters/shared/chat-adapter.ts';
import { textFrameShortcut } from '../../src/families/chat/relay-text-frames.ts';
import { usageTap } from '../../src/families/chat/relay-usage-tap.ts';
import { sseFeed } from '../../src/infra/upstream/read-sse.ts';
import { StreamMeter } from '../../src/services/usage/usage-meter.ts';
import { fuzz } from '../fuzz/chat-fuzz.ts';
import { fixtureStreams } from '../fuzz/fixtures.ts';
import { streams, type Frame, type Stream } from '../fuzz/mutate-frames.ts';
import { fuzzRuns } from '../fuzz/mutate-json.ts';

/** Every quoted JSON string of a frame, as [start of its opening quote, end after its closing quote]. */
function quotedSpans(data: string): [number, number][] {
  return [...data.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => [m.index, m.index + m[0].length]);
}

/** What a frame's string may be respelled as: plain text, JSON escapes, broken JSON, another member's value. */
const spelling = (recorded: Frame[][]): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('Hi', ' ', 'x', 'text_delta', 'content_block_delta', 'chat.completion.chunk', 'assistant', '0'),
    fc.constantFrom(...recorded.flat().flatMap((f) => quotedSpans(f.data).map(([a, b]) => f.data.slice(a + 1, b - 1)))),
    fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s).slice(1, -1)),
    fc.string({ maxLength: 8 }),
    fc.constantFrom('\\u0048i', 'a\\"b', 'wörld 👋', '\\n', '\\\\', 'tab\there', '"', ''),
  );

/**
 * A recorded stream with one frame (mostly a text delta) repeated after itself, each copy with one
 * of its strings respelled (mostly the text, now and then another member, so that a copy's text
 * may equal another member's value and the next copy respell that member).
 */
const repeats = (recorded: Frame[][]): fc.Arbitrary<Stream> =>
  fc
    .record({
      base: fc.constantFrom(...recorded),
      at: fc.nat(),
      copies: fc.array(fc.record({ which: fc.oneof(fc.constant(-1), fc.nat()), text: spelling(recorded) }), {
        minLength: 1,
        maxLength: 6,
      }),
      end: fc.boolean(),
    })
    .map(({ base, at, copies, end }) => {
      const frames = base.map((f) => ({ ...f }));
      const deltas = frames.flatMap((f, i) => (/"text_delta"|"content":"/.test(f.data) ? [i] : []));
      const i = at % 2 === 0 && deltas.length > 0 ? deltas[(at >> 1) % deltas.length] : at % frames.length;
      const data = frames[i].data;
      const spans = quotedSpans(data);
      if (spans.length === 0) return { frames, end };
      const text = spans.findIndex(([x]) => /"(text|content)":$/.test(data.slice(0, x)));
      const respelled = copies.map(({ which, text: s }) => {
        const [a, b] = spans[which === -1 ? (text === -1 ? spans.length - 1 : text) : which % spans.length];
        return { ...frames[i], data: `${data.slice(0, a + 1)}${s}${data.slice(b - 1)}` };
      });
      frames.splice(i + 1, 0, ...respelled);
      return { frames, end };
    });

/** A decoder's answer to one call, errors by their message: what must not differ. */
function answer(call: () => unknown): string {
  try {
    return JSON.stringify(call(), (_k, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v));
  } catch (e) {
    return `threw ${e instanceof Error ? e.message : String(e)}`;
  }
}

const formats: { name: string; codec: ChatUpstreamCodec; recorded: Frame[][] }[] = [
  {
    name: 'messages (named events)',
    codec: anthropicUpstreamCodec,
    recorded: fixtureStreams('anthropic-messages', true),
  },
  {
    name: 'messages (no event names)',
    codec: anthropicUpstreamCodec,
    recorded: fixtureStreams('anthropic-messages', false),
  },
  {
    name: 'chat',
    codec: openaiChatUpstreamCodec,
    recorded: [...fixtureStreams('openai-chat', false), chatText(false), chatText(true)],
  },
];

for (const f of formats) {
  t.test(`${f.name}: the shortcut's events are the decoder's, frame by frame`, async (t) => {
    t.equal(f.codec.createStreamDecoder().repeatsTextFrames, true, 'the decoder opts in');
    const arb = fc.oneof(repeats(f.recorded), streams(f.recorded));
    let read = 0;
    fuzz(t, 'same events', arb, (s) => {
      const plain = f.codec.createStreamDecoder();
      const inner = f.codec.createStreamDecoder();
      const fast = textFrameShortcut({
        repeatsTextFrames: true,
        push: (frame) => {
          read++;
          return inner.push(frame);
        },
        end: () => inner.end(),
      });
      read -= s.frames.length;
      for (const [i, frame] of s.frames.entries()) {
        const want = answer(() => plain.push(frame));
        const got = answer(() => fast.push(frame));
        if (got !== want) throw new Error(`frame ${i} ${JSON.stringify(frame)}: ${got} instead of ${want}`);
      }
      if (s.end && answer(() => fast.end()) !== answer(() => plain.end())) throw new Error('end differs');
    });
    // The runs must have put the shortcut to work, not only the decoder.
    t.ok(-read > fuzzRuns / 10, `${-read} frames read without the decoder`);
  });

  t.test(`${f.name}: the tap bills what main's tap billed, however the bytes come and stop`, async (t) => {
    const bytes = fc
      .record({
        stream: fc.oneof(repeats(f.recorded), streams(f.recorded)),
        splits: fc.array(fc.nat(), { maxLength: 12 }),
        cut: fc.option(fc.nat()),
        ended: fc.boolean(),
      })
      .map(({ stream, splits, cut, ended }) => {
        const wire = Buffer.from(stream.frames.map(sse).join(''));
        const kept = cut === null ? wire : wire.subarray(0, cut % (wire.length + 1));
        const at = [...new Set(splits.map((n) => n % (kept.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((a, i) => kept.subarray(a, i < at.length ? at[i] : kept.length));
        return { chunks, ended };
      });
    fuzz(t, 'same bill', bytes, ({ chunks, ended }) => {
      const tap = usageTap(f.codec, 'text/event-stream', 200);
      const before = mainTap(f.codec.createStreamDecoder());
      for (const [i, c] of chunks.entries()) {
        const got = answer(() => tap.feed(Buffer.from(c)));
        const want = answer(() => before.feed(Buffer.from(c)));
        if (got !== want || tap.finished() !== before.finished())
          throw new Error(`chunk ${i}: ${got}/${tap.finished()} instead of ${want}/${before.finished()}`);
      }
      if (ended) {
        tap.end();
        before.end();
      }
      const bill = (m: StreamMeter | undefined): string =>
        answer(() => [m?.final, m?.streamedTokens(), m?.settle(() => 77)]);
      if (bill(tap.meter()) !== bill(before.meter)) throw new Error(`${bill(tap.meter())} ≠ ${bill(before.meter)}`);
    });
  });
}

t.test('frames the shortcut must leave to the decoder', async (t) => {
  const delta = (inner: string): Frame => ({
    event: 'content_block_delta',
    data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta",${inner}}}`,
  });
  const typed = (type: string): string =>
    `{"type":"content_block_delta","index":0,"delta":{"type":"${type}","text":"text_delta"}}`;
  const hello = (x: Frame): boolean => x.data.includes('"text_delta","text":"Hello"');
  // message_start and the text block's start, before the deltas.
  const start =
    fixtureStreams('anthropic-messages', true)
      .find((x) => x.some(hello))
      ?.slice(0, 2) ?? [];
  const cases: [string, Frame[]][] = [
    // The text's spelling, "Hi", found first in another string after an escaped quote.
    ['an escape before', [delta('"x":"a\\"Hi","text":"\\u0048i"'), delta('"x":"a\\"Yo","text":"\\u0048i"')]],
    // The text equal to the delta's type: its spelling is there twice.
    ['a text spelled twice', [delta('"text":"text_delta"'), { ...delta('"text":"text_delta"'), data: typed('Hi') }]],
    ['a quote in the new text', [delta('"text":"Hi"'), delta('"text":"a"b"')]],
    ['an escape in the new text', [delta('"text":"Hi"'), delta('"text":"\\n"')]],
    ['another event name', [delta('"text":"Hi"'), { event: 'message_delta', data: delta('"text":"Yo"').data }]],
  ];
  for (const [name, frames] of cases) {
    const plain = anthropicUpstreamCodec.createStreamDecoder();
    const fast = textFrameShortcut(anthropicUpstreamCodec.createStreamDecoder());
    for (const f of [...start, ...frames])
      t.equal(
        answer(() => fast.push(f)),
        answer(() => plain.push(f)),
        `${name}: ${f.data}`,
      );
  }
});

t.test('a text stream is read mostly without its decoder', async (t) => {
  const hello = (x: Frame): boolean => x.data.includes('"text_delta","text":"Hello"');
  const frames = fixtureStreams('anthropic-messages', true).find((s) => s.some(hello));
  const template = frames?.find(hello);
  if (!frames || !template) throw new Error('no fixture with a Hello text delta');
  const words = Array.from({ length: 20 }, (_, i) => template.data.replace('Hello', `word${i} `));
  let pushes = 0;
  const plain = anthropicUpstreamCodec.createStreamDecoder();
  const counted: UpstreamStreamDecoder = {
    repeatsTextFrames: true,
    push: (frame) => {
      pushes++;
      return plain.push(frame);
    },
    end: () => plain.end(),
  };
  const fast = textFrameShortcut(counted);
  const texts: string[] = [];
  for (const frame of [...frames.slice(0, 2), ...words.map((data) => ({ event: template.event, data }))])
    for (const e of fast.push(frame)) if (e.type === 'text-delta') texts.push(e.text);
  t.same(
    texts,
    Array.from({ length: 20 }, (_, i) => `word${i} `),
  );
  t.equal(pushes, 3, 'message_start, content_block_start and the first delta went to the decoder');
});

/** One frame on the wire; a data with line breaks goes as several data lines, as SSE joins them back. */
const sse = (f: Frame): string =>
  `${f.event === undefined ? '' : `event: ${f.event}\n`}${f.data
    .split('\n')
    .map((l) => `data: ${l}\n`)
    .join('')}\n`;

/** The relay's usage tap before the shortcut (main at 67b3236): every frame through the decoder. */
function mainTap(decoder: UpstreamStreamDecoder): {
  feed: (b: Buffer) => void;
  end: () => void;
  meter: StreamMeter;
  finished: () => boolean;
} {
  const meter = new StreamMeter();
  let finished = false;
  const feed = sseFeed(decoder, (ev) => {
    meter.observe(ev);
    if (ev.type === 'finish') finished = true;
  });
  const end = (): void => {
    try {
      feed.end();
    } catch {
      // as the tap: the meter bills what it saw
    }
  };
  return { feed: feed.feed, end, meter, finished: () => finished };
}

/**
 * A text answer as OpenAI streams it (the recorded Chat fixtures are tool calls and reasoning):
 * role chunk, text chunks, finish, usage chunk or `usage` on every chunk, `[DONE]`.
 */
function chatText(usageOnEvery: boolean): Frame[] {
  const usage = '{"prompt_tokens":19,"completion_tokens":6,"total_tokens":25}';
  const chunk = (delta: string, finish: string | null, u: string | null): Frame => ({
    data: `{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4.1","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}],"usage":${u ?? 'null'}${usageOnEvery ? ',"obfuscation":"x1"' : ''}}`,
  });
  const every = usageOnEvery ? usage : null;
  return [
    chunk('{"role":"assistant","content":"","refusal":null}', null, every),
    ...['Hello', ', ', 'wörld', '! 👋', ' How', ' are', ' you?'].map((w) => chunk(`{"content":"${w}"}`, null, every)),
    chunk('{}', 'stop', every),
    ...(usageOnEvery
      ? []
      : [
          {
            data: `{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4.1","choices":[],"usage":${usage}}`,
          },
        ]),
    { data: '[DONE]' },
  ];
}
