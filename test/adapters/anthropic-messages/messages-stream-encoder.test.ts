// IR stream -> Messages SSE: the real event sequence, contiguous block indexes, lazy
// message_start, errors inside the stream. The official SDK parses the golden streams.
import t from 'tap';
import { finishEvent, reasoningPart, textPart, toolInputPart } from '../stream-events.ts';
import Anthropic from '@anthropic-ai/sdk';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import type { SseFrame } from '../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import type { ReasoningOrigin } from '../../../src/ir/wire-format.ts';
import { fixtureJson, fixtureText } from './fixtures.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request: ChatRequest = chatRequest({ model: 'claude-sonnet', messages: [], stream: true });
const encodeAll = (events: StreamEvent[]): SseFrame[] => {
  const enc = anthropicClientCodec.createStreamEncoder(request);
  return events.flatMap((e) => enc.push(e));
};
const parsed = (frames: SseFrame[]): Array<Record<string, unknown>> =>
  frames.map((f) => JSON.parse(f.data) as Record<string, unknown>);
/** The events of a message with one content block and one delta, in order. */
const oneBlockMessage = [
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
];
const finish = finishEvent('stop', 'stop', { inputTokens: 7, outputTokens: 2 });

/** Golden IR events; error events are stored as {kind, message}. */
function goldenEvents(name: string): StreamEvent[] {
  return (fixtureJson(`${name}.events.json`) as Array<Record<string, unknown>>).map((e) => {
    if (e.type !== 'error') return e as StreamEvent;
    const { kind, message } = e.error as { kind: GatewayError['kind']; message: string };
    return { type: 'error', error: new GatewayError(kind, message) };
  });
}

// The golden events against their expected bytes: test/adapters/golden-fixtures.test.ts.

t.test('every frame names its event and carries the same type in its data', async (t) => {
  for (const f of encodeAll(goldenEvents('thinking-stream')))
    t.equal((JSON.parse(f.data) as { type: string }).type, f.event);
});

t.test('message_start is synthesized when the upstream sent no start, before the first block', async (t) => {
  const frames = encodeAll([...textPart(0, 'hi'), finish]);
  t.same(
    frames.map((f) => f.event),
    oneBlockMessage,
  );
  const start = parsed(frames)[0] as {
    message: { id: string; model: string; content: unknown[]; stop_reason: unknown };
  };
  t.match(start.message.id, /^msg_[0-9a-f]{32}$/);
  t.equal(start.message.model, 'claude-sonnet');
  t.same([start.message.content, start.message.stop_reason], [[], null]);
  const delta = parsed(frames)[4] as { usage: Record<string, number> };
  t.same(delta.usage, {
    input_tokens: 7,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 2,
  });
});

t.test('IR part indexes become contiguous block indexes in the order blocks open', async (t) => {
  const frames = encodeAll([
    { type: 'start', id: 'abc', model: 'up', usage: { inputTokens: 5 } },
    ...reasoningPart(3, 'anthropic-messages', { deltas: ['hm'], signature: 'sig' }),
    ...toolInputPart(7, 'call_9', 'f', '{"a"', ':1}'),
    finish,
  ]);
  const data = parsed(frames);
  t.equal((data[0] as { message: { id: string } }).message.id, 'msg_abc', 'msg_ prefix added');
  t.same(
    data.filter((d) => d.type === 'content_block_start').map((d) => [d.index, d.content_block]),
    [
      [0, { type: 'thinking', thinking: '', signature: '' }],
      [1, { type: 'tool_use', id: 'call_9', name: 'f', input: {} }],
    ],
  );
  t.same(
    data.filter((d) => d.type === 'content_block_delta').map((d) => [d.index, d.delta]),
    [
      [0, { type: 'thinking_delta', thinking: 'hm' }],
      [0, { type: 'signature_delta', signature: 'sig' }],
      [1, { type: 'input_json_delta', partial_json: '{"a"' }],
      [1, { type: 'input_json_delta', partial_json: ':1}' }],
    ],
  );
});

t.test('redacted reasoning is one content_block_start carrying the data', async (t) => {
  const data = parsed(encodeAll([...reasoningPart(0, 'anthropic-messages', { redacted: 'opaque==' }), finish]));
  t.same(data[1], {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'redacted_thinking', data: 'opaque==' },
  });
  t.same(data[2], { type: 'content_block_stop', index: 0 });
});

t.test('finish closes blocks left open; refusal text becomes a text block; nothing follows message_stop', async (t) => {
  const enc = anthropicClientCodec.createStreamEncoder(request);
  const frames = [
    ...enc.push({ type: 'start', id: 'msg_1', model: 'up' }),
    ...enc.push({ type: 'refusal-delta', index: 0, text: 'I will not.' }),
    ...enc.push({
      type: 'finish',
      finish: { reason: 'refusal', raw: 'refusal' },
      usage: { inputTokens: 4, outputTokens: 3 },
    }),
  ];
  const data = parsed(frames);
  t.same(
    data.map((d) => d.type),
    oneBlockMessage,
  );
  t.same(data[2].delta, { type: 'text_delta', text: 'I will not.' });
  t.same(data[4].delta, { stop_reason: 'refusal', stop_sequence: null });
  t.same(enc.push({ type: 'text-delta', index: 0, text: 'late' }), [], 'events after the end are ignored');
});

t.test('usage events and start usage merge into message_delta; zeros do not erase real counts', async (t) => {
  const data = parsed(
    encodeAll([
      { type: 'start', id: 'm', model: 'up', usage: { inputTokens: 100, cacheReadTokens: 60 } },
      { type: 'usage', usage: { outputTokens: 5 } },
      finishEvent('stop', 'stop', { inputTokens: 0, outputTokens: 9 }),
    ]),
  );
  t.same((data[0] as { message: { usage: unknown } }).message.usage, {
    input_tokens: 40,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 60,
    output_tokens: 0,
  });
  t.same(data.at(-2)?.usage, {
    input_tokens: 40,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 60,
    output_tokens: 9,
  });
});

t.test('an IR error becomes an `event: error` in the family error shape, and ends the stream', async (t) => {
  const enc = anthropicClientCodec.createStreamEncoder(request);
  enc.push({ type: 'text-delta', index: 0, text: 'part' });
  const frames = enc.push({ type: 'error', error: new GatewayError('rate-limit', 'slow down') });
  t.same(frames, [
    {
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        error: { type: 'rate_limit_error', message: 'slow down', code: 'rate_limit_error' },
      }),
    },
  ]);
  t.same(enc.push(finish), []);
});

t.test('a stray tool-input delta without its start is not shown', async (t) => {
  const data = parsed(encodeAll([{ type: 'tool-input-delta', index: 2, json: '{}' }, finish]));
  t.same(
    data.map((d) => d.type),
    ['message_start', 'message_delta', 'message_stop'],
  );
});

t.test('the official SDK parses the golden streams into the expected messages', async (t) => {
  let body = '';
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise<void>((ok) => server.close(() => ok())));
  const client = new Anthropic({
    apiKey: 'k',
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    maxRetries: 0,
  });
  const run = (name: string) => {
    body = fixtureText(`${name}.expected.sse`);
    return client.messages
      .stream({ model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage();
  };

  const text = await run('text-stream');
  t.same(text.content, [{ type: 'text', text: 'Hello, wörld! 👋' }]);
  t.same(
    [
      text.model,
      text.stop_reason,
      text.usage.input_tokens,
      text.usage.cache_read_input_tokens,
      text.usage.output_tokens,
    ],
    ['claude-sonnet', 'end_turn', 12, 1024, 9],
  );

  const tool = await run('tool-stream');
  t.same(tool.content, [
    { type: 'text', text: 'Checking the weather.' },
    {
      type: 'tool_use',
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      name: 'get_weather',
      input: { location: 'San Francisco, CA', unit: 'fahrenheit' },
    },
  ]);
  t.equal(tool.stop_reason, 'tool_use');

  const thinking = await run('thinking-stream');
  t.same(thinking.content, [
    {
      type: 'thinking',
      thinking: 'I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+A/8oB8nYmSDNt2LBrr7p/Lr/3f2HPVyS4=',
    },
    {
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj4=',
    },
    { type: 'text', text: 'The GCD is 21.' },
  ]);

  const err = await run('overloaded-stream').catch((e: unknown) => e);
  t.type(err, Anthropic.APIError);
  t.match((err as InstanceType<typeof Anthropic.APIError>).error, {
    type: 'error',
    error: { type: 'overloaded_error' },
  });
});

t.test('only Anthropic’s own signatures are presented as signatures; a failed answer is an error', async (t) => {
  const thinking = (origin: ReasoningOrigin): StreamEvent[] => [
    { type: 'start', id: 'x', model: 'm' },
    ...reasoningPart(0, origin, { deltas: ['hmm'], signature: 'opaque-token' }),
    finish,
  ];
  const signatures = (events: StreamEvent[]): unknown[] =>
    parsed(encodeAll(events)).flatMap((e) =>
      e.type === 'content_block_delta' && (e.delta as { type: string }).type === 'signature_delta'
        ? [(e.delta as { signature: string }).signature]
        : [],
    );
  t.same(signatures(thinking('anthropic-messages')), ['opaque-token'], 'Anthropic’s: relayed');
  t.same(signatures(thinking('polygate')), [], 'polygate’s own reasoning has no signature to show');
  t.same(signatures(thinking('gemini')), [], 'a Gemini thought signature is not shown as an Anthropic one');
  t.same(signatures(thinking('openai-responses')), [], 'nor an OpenAI reasoning item id');
  const foreignRedacted = parsed(
    encodeAll([
      { type: 'start', id: 'x', model: 'm' },
      ...reasoningPart(0, 'openai-responses', { redacted: 'r' }),
      finish,
    ]),
  );
  t.equal(
    (foreignRedacted.find((e) => e.type === 'content_block_start')?.content_block as { type: string }).type,
    'thinking',
    'redacted data of another provider is not an Anthropic redacted_thinking block',
  );

  const failed = encodeAll([
    { type: 'start', id: 'x', model: 'm' },
    {
      type: 'finish',
      finish: { reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' },
      usage: { inputTokens: 1, outputTokens: 0 },
    },
  ]);
  t.same(
    failed.map((f) => f.event),
    ['message_start', 'error'],
    'an error event instead of message_delta / message_stop',
  );
  t.match(JSON.parse(failed[1].data), {
    type: 'error',
    error: { type: 'server_error', message: /MALFORMED_FUNCTION_CALL/ },
  });
});
