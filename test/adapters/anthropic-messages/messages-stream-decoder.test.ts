// Upstream Messages SSE -> IR events: one method per wire event, tool input pieces passed through
// byte for byte, thinking with its signature, an early end or an error event as an IR error.
import t from 'tap';
import { textPart } from '../stream-events.ts';
import { anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { fixtureChunks, fixtureJson } from './fixtures.ts';

type Frame = { event?: string; data: string };
const run = (frames: Frame[], end = true): StreamEvent[] => {
  const dec = anthropicUpstreamCodec.createStreamDecoder();
  const out = frames.flatMap((f) => dec.push(f));
  return end ? [...out, ...dec.end()] : out;
};
/** Error events compared by kind and message, as the golden files store them. */
const plain = (events: StreamEvent[]): unknown[] =>
  events.map((e) =>
    e.type === 'error' ? { type: 'error', error: { kind: e.error.kind, message: e.error.message } } : e,
  );
const ev = (data: Record<string, unknown>): Frame => ({ event: String(data.type), data: JSON.stringify(data) });
const start = ev({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  },
});
const stop = ev({ type: 'message_stop' });

// The recorded streams against their golden IR events: test/adapters/golden-fixtures.test.ts.

t.test('split partial_json pieces concatenate to the upstream arguments exactly', async (t) => {
  const events = run(fixtureChunks('tool-stream.chunks.jsonl'));
  const json = events.flatMap((e) => (e.type === 'tool-input-delta' ? [e.json] : [])).join('');
  t.equal(json, '{"location": "San Francisco, CA", "unit": "fahrenheit"}', 'spacing and key order preserved');
  const toolStart = events.find((e) => e.type === 'tool-input-start');
  t.same(toolStart, { type: 'tool-input-start', index: 1, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' });
});

t.test('thinking deltas and the signature arrive byte-exact; usage merges cache and thinking tokens', async (t) => {
  const events = run(fixtureChunks('thinking-stream.chunks.jsonl'));
  t.equal(
    events.flatMap((e) => (e.type === 'reasoning-delta' && e.index === 0 ? [e.text] : [])).join(''),
    'I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147',
  );
  t.same(
    events.filter((e) => e.type === 'reasoning-signature'),
    [
      {
        type: 'reasoning-signature',
        index: 0,
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+A/8oB8nYmSDNt2LBrr7p/Lr/3f2HPVyS4=',
      },
    ],
  );
  const finish = events.at(-1);
  t.same(finish, {
    type: 'finish',
    finish: { reason: 'stop', raw: 'end_turn', stopSequence: null },
    usage: { inputTokens: 125, outputTokens: 211, cacheReadTokens: 0, cacheWriteTokens: 40, reasoningTokens: 180 },
  });
});

t.test('works without event names (the type inside the data decides)', async (t) => {
  const frames = fixtureChunks('text-stream.chunks.jsonl').map((f) => ({ data: f.data }));
  t.same(plain(run(frames)), fixtureJson('text-stream.events.json'));
});

t.test('a stream that ends without message_stop is an upstream error', async (t) => {
  const events = run([
    start,
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'par' } }),
  ]);
  const last = events.at(-1);
  t.equal(last?.type, 'error');
  if (last?.type === 'error') {
    t.equal(last.error.kind, 'upstream');
    t.equal(last.error.status, 502);
    t.match(last.error.message, /ended early/);
  }
});

t.test('nothing more after message_stop; end() then adds nothing', async (t) => {
  const dec = anthropicUpstreamCodec.createStreamDecoder();
  dec.push(start);
  t.equal(dec.push(stop).at(-1)?.type, 'finish');
  t.same(dec.push(ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'late' } })), []);
  t.same(dec.end(), []);
});

t.test('message_stop closes blocks the upstream left open; finish defaults to end_turn', async (t) => {
  const events = run([
    start,
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } }),
    stop,
  ]);
  t.same(events.slice(1), [
    ...textPart(0, 'Hi'),
    {
      type: 'finish',
      finish: { reason: 'stop', raw: 'end_turn', stopSequence: null },
      usage: { inputTokens: 10, outputTokens: 1 },
    },
  ]);
});

t.test(
  'server-tool blocks, citations deltas, pings and unknown events are skipped without shifting indexes',
  async (t) => {
    const events = run([
      start,
      { event: 'ping', data: '{"type": "ping"}' },
      ev({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      }),
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      }),
      ev({ type: 'content_block_stop', index: 1 }),
      ev({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }),
      ev({
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'citations_delta', citation: { type: 'web_search_result_location', url: 'https://x' } },
      }),
      ev({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'found' } }),
      ev({ type: 'content_block_stop', index: 2 }),
      ev({ type: 'future_event', something: true }),
      ev({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 4, server_tool_use: { web_search_requests: 1 } },
      }),
      stop,
    ]);
    t.same(events.slice(1, -1), [...textPart(0, 'found')]);
  },
);

t.test('an error event becomes an IR error with the kind of its type', async (t) => {
  const cases: Array<[string, string, number]> = [
    ['overloaded_error', 'overloaded', 503],
    ['rate_limit_error', 'rate-limit', 429],
    ['api_error', 'internal', 500],
    ['invalid_request_error', 'invalid-request', 400],
    ['authentication_error', 'upstream', 502],
    ['brand_new_error', 'upstream', 502],
  ];
  for (const [type, kind, status] of cases) {
    const events = run([start, ev({ type: 'error', error: { type, message: 'msg here' } })]);
    const last = events.at(-1);
    t.equal(events.length, 2, `${type}: end() adds nothing after an error`);
    t.equal(last?.type === 'error' && last.error.kind, kind, type);
    t.equal(last?.type === 'error' && last.error.status, status, `${type} status`);
  }
});

t.test('data that is not JSON, or a malformed known event, is an upstream error', async (t) => {
  const bad = run([start, { event: 'content_block_delta', data: '{not json' }]);
  t.match(bad.at(-1), { type: 'error', error: { kind: 'upstream', message: /not JSON/ } });
  const malformed = run([
    start,
    ev({ type: 'content_block_start', index: 'zero', content_block: { type: 'text', text: '' } }),
  ]);
  t.match(malformed.at(-1), { type: 'error', error: { kind: 'upstream', message: /malformed 'content_block_start'/ } });
  t.equal(malformed.length, 2);
});

t.test('stop_sequence and cumulative usage from message_delta', async (t) => {
  const events = run([
    ev({
      type: 'message_start',
      message: { id: 'm', model: 'c', usage: { input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 } },
    }),
    ev({
      type: 'message_delta',
      delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
      usage: { input_tokens: 6, output_tokens: 12 },
    }),
    stop,
  ]);
  t.same(events[0], {
    type: 'start',
    id: 'm',
    model: 'c',
    usage: { inputTokens: 105, outputTokens: 1, cacheReadTokens: 100 },
  });
  t.same(events.at(-1), {
    type: 'finish',
    finish: { reason: 'stop-sequence', raw: 'stop_sequence', stopSequence: '###' },
    usage: { inputTokens: 106, outputTokens: 12, cacheReadTokens: 100 },
  });
});
