import t from 'tap';
import { toolInputPart } from '../stream-events.ts';
import { openaiChatUpstreamCodec as codec } from '../../../adapters/openai-chat/index.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { fixtureChunks } from './fixtures.ts';

/** Plain JSON of the events, so GatewayError instances compare by their fields. */
function run(frames: Array<{ data: string }>, end = true): StreamEvent[] {
  const d = codec.createStreamDecoder();
  const out = frames.flatMap((f) => d.push(f));
  return end ? [...out, ...d.end()] : out;
}

const chunk = (
  delta: Record<string, unknown> | null,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): { data: string } => ({
  data: JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  }),
});
const done = { data: '[DONE]' };
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

// The golden bytes and events themselves: test/adapters/golden-fixtures.test.ts.
t.test('two parallel tool calls, arguments split across chunks, by index', async (t) => {
  const events = run(fixtureChunks('parallel-tools.chunks.jsonl'));
  const rebuilt = new Map<number, string>();
  for (const e of events)
    if (e.type === 'tool-input-delta') rebuilt.set(e.index, (rebuilt.get(e.index) ?? '') + e.json);
  t.strictSame(
    [...rebuilt.values()],
    ['{"city": "Paris"}', '{"tz": "Europe/Paris"}'],
    'fragments rebuild the arguments exactly',
  );
});

t.test('the usage chunk arrives after finish_reason: finish waits for [DONE]', async (t) => {
  const d = codec.createStreamDecoder();
  t.strictSame(
    d.push(chunk({ role: 'assistant', content: '' })),
    [{ type: 'start', id: 'chatcmpl-1', model: 'gpt-4o' }],
    'role chunk opens no text part',
  );
  t.strictSame(d.push(chunk({ content: 'Hi' })), [
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, text: 'Hi' },
  ]);
  t.strictSame(d.push(chunk({}, 'stop')), [{ type: 'text-end', index: 0 }], 'no finish yet');
  t.strictSame(d.push(chunk(null, null, { usage })), [], 'usage chunk is remembered');
  t.strictSame(d.push(done), [
    { type: 'finish', finish: { reason: 'stop', raw: 'stop' }, usage: { inputTokens: 10, outputTokens: 5 } },
  ]);
  t.strictSame(d.end(), [], 'nothing after the finish');
  t.strictSame(d.push(chunk({ content: 'late' })), [], 'nothing after [DONE]');
});

t.test('finish_reason without [DONE]: end() still finishes', async (t) => {
  const events = run([chunk({ content: 'a' }), chunk({}, 'length')]);
  t.strictSame(events.at(-1), {
    type: 'finish',
    finish: { reason: 'length', raw: 'length' },
    usage: { inputTokens: 0, outputTokens: 0 },
  });
});

t.test('neither finish_reason nor [DONE]: end() reports the stream ended early', async (t) => {
  const events = run([chunk({ role: 'assistant', content: '' }), chunk({ content: 'partial' })]);
  const last = events.at(-1);
  t.equal(last?.type, 'error');
  if (last?.type !== 'error') return;
  t.equal(last.error.kind, 'upstream');
  t.equal(last.error.status, 502);
  t.match(last.error.message, /ended early/);
});

t.test('an error chunk becomes an error event and ends the stream', async (t) => {
  const d = codec.createStreamDecoder();
  d.push(chunk({ content: 'a' }));
  const events = d.push({
    data: JSON.stringify({
      error: { message: 'The server had an error', type: 'server_error', param: null, code: null },
    }),
  });
  t.equal(events.length, 1);
  const e = events[0];
  t.equal(e.type, 'error');
  if (e.type === 'error') t.match(e.error.message, /upstream.*The server had an error/);
  t.strictSame(d.push(chunk({ content: 'b' })), []);
  t.strictSame(d.end(), []);
});

t.test('text, then a tool call: the text part closes before the tool part opens', async (t) => {
  const events = run([
    chunk({ role: 'assistant', content: 'Let me check.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
    chunk({}, 'tool_calls'),
    done,
  ]);
  t.strictSame(
    events.map((e) => e.type + ('index' in e ? `:${e.index}` : '')),
    [
      'start',
      'text-start:0',
      'text-delta:0',
      'text-end:0',
      'tool-input-start:1',
      'tool-input-delta:1',
      'tool-input-delta:1',
      'tool-input-end:1',
      'finish',
    ],
  );
});

t.test('a call sent whole in one chunk (compatible servers) and one without index', async (t) => {
  const events = run([
    chunk({ tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'a', arguments: '{"x":1}' } }] }),
    chunk({ tool_calls: [{ id: 'c1', type: 'function', function: { name: 'b', arguments: '{}' } }] }),
    chunk({}, 'tool_calls'),
    done,
  ]);
  t.strictSame(
    events.filter((e) => e.type.startsWith('tool')),
    [...toolInputPart(0, 'c0', 'a', '{"x":1}'), ...toolInputPart(1, 'c1', 'b', '{}')],
  );
});

t.test('refusal deltas', async (t) => {
  const events = run([
    chunk({ role: 'assistant', content: '', refusal: null }),
    chunk({ refusal: "I can't" }),
    chunk({ refusal: ' help.' }),
    chunk({}, 'stop'),
    done,
  ]);
  t.strictSame(events.slice(1, 3), [
    { type: 'refusal-delta', index: 0, text: "I can't" },
    { type: 'refusal-delta', index: 0, text: ' help.' },
  ]);
});

t.test('data that is not JSON is an upstream error', async (t) => {
  const events = run([{ data: '{not json' }], false);
  t.equal(events.length, 1);
  t.equal(events[0].type, 'error');
});

t.test('without index, fragments that repeat the id continue the same call', async (t) => {
  const events = run([
    chunk({ tool_calls: [{ id: 'c9', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }),
    chunk({ tool_calls: [{ id: 'c9', function: { arguments: '1}' } }] }),
    chunk({}, 'tool_calls'),
    done,
  ]);
  t.strictSame(
    events.filter((e) => e.type.startsWith('tool')),
    [...toolInputPart(0, 'c9', 'f', '{"a":', '1}')],
  );
});
