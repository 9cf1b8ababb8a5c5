import t from 'tap';
import { Stream } from 'openai/streaming';
import OpenAI from 'openai';
import { openaiChatClientCodec as codec } from '../../../adapters/openai-chat/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { fixtureJson, sseText } from './fixtures.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request = (options: Record<string, unknown> = {}): ChatRequest =>
  chatRequest({ model: 'claude-sonnet', messages: [], stream: true, extensions: { 'openai-chat': options } });
const encodeAll = (events: StreamEvent[], req = request()): string => {
  const enc = codec.createStreamEncoder(req);
  return sseText(events.flatMap((e) => enc.push(e)));
};

/** Reads SSE text the way the official SDK does. */
async function* sdkChunks(sse: string): AsyncGenerator<OpenAI.ChatCompletionChunk> {
  const res = new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
  yield* Stream.fromSSEResponse<OpenAI.ChatCompletionChunk>(res, new AbortController());
}

// The golden bytes: test/adapters/golden-fixtures.test.ts.
t.test('text and two tool calls with include_usage (reasoning omitted)', async (t) => {
  const sse = encodeAll(
    fixtureJson('text-and-tool.events.json') as StreamEvent[],
    request({ 'stream_options.include_usage': true }),
  );
  t.notOk(sse.includes('Need the weather tool'), 'reasoning does not leak');
  t.ok(sse.endsWith('data: [DONE]\n\n'), 'ends with the literal [DONE]');
  t.notOk(sse.includes('event:'), 'data-only framing');
});

t.test('the SDK parses the stream: text, contiguous tool_calls by index, usage chunk', async (t) => {
  const sse = encodeAll(
    fixtureJson('text-and-tool.events.json') as StreamEvent[],
    request({ 'stream_options.include_usage': true }),
  );
  let text = '';
  const calls: Array<{ id?: string; name?: string; args: string }> = [];
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of sdkChunks(sse)) {
    const c = chunk.choices[0];
    text += c?.delta.content ?? '';
    for (const tc of c?.delta.tool_calls ?? []) {
      calls[tc.index] ??= { args: '' };
      if (tc.id) calls[tc.index].id = tc.id;
      if (tc.function?.name) calls[tc.index].name = tc.function.name;
      calls[tc.index].args += tc.function?.arguments ?? '';
    }
    if (c?.finish_reason) finish = c.finish_reason;
    if (chunk.usage) usage = chunk.usage;
  }
  t.equal(text, 'Checking now.');
  t.strictSame(calls, [
    { id: 'toolu_01A', name: 'get_weather', args: '{"city": "Paris"}' },
    { id: 'toolu_02B', name: 'get_time', args: '{}' },
  ]);
  t.equal(finish, 'tool_calls');
  t.equal(usage?.total_tokens, 165);
});

const textEvents: StreamEvent[] = [
  { type: 'start', id: 'chatcmpl-abc', model: 'x' },
  { type: 'text-start', index: 0 },
  { type: 'text-delta', index: 0, text: 'Hi' },
  { type: 'text-end', index: 0 },
  { type: 'finish', finish: { reason: 'stop', raw: 'stop' }, usage: { inputTokens: 3, outputTokens: 1 } },
];

t.test('without include_usage: no usage chunk and no usage field, still [DONE]', async (t) => {
  const sse = encodeAll(textEvents);
  const frames = sse.split('\n\n').filter(Boolean);
  t.equal(frames.length, 4, 'role chunk, text chunk, finish chunk, [DONE]');
  t.notOk(sse.includes('usage'));
  t.equal(frames[3], 'data: [DONE]');
  const first = JSON.parse(frames[0].slice(6));
  t.equal(first.id, 'chatcmpl-abc', 'an id that already has the prefix is kept');
  t.strictSame(first.choices[0].delta, { role: 'assistant', content: '', refusal: null });
});

t.test('a mid-stream error is a data frame the SDK throws as APIError; nothing follows it', async (t) => {
  const enc = codec.createStreamEncoder(request());
  const frames = [
    ...enc.push(textEvents[0]),
    ...enc.push({ type: 'text-delta', index: 0, text: 'par' }),
    ...enc.push({ type: 'error', error: new GatewayError('upstream', 'openai-chat upstream stream ended early') }),
    ...enc.push(textEvents[4]),
  ];
  const sse = sseText(frames);
  const last = JSON.parse(frames.at(-1)?.data ?? '{}');
  t.strictSame(last, {
    error: { message: 'openai-chat upstream stream ended early', type: 'server_error', param: null, code: null },
  });
  t.notOk(sse.includes('[DONE]'), 'no [DONE] after an error: the stream did not complete');
  let text = '';
  const err = await (async () => {
    for await (const c of sdkChunks(sse)) text += c.choices[0]?.delta.content ?? '';
  })().catch((e: unknown) => e);
  t.equal(text, 'par');
  t.type(err, OpenAI.APIError);
  t.match((err as Error).message, /ended early/);
});

t.test('refusal deltas and a finish without start still produce a valid stream', async (t) => {
  const sse = encodeAll([
    { type: 'refusal-delta', index: 0, text: 'No.' },
    { type: 'finish', finish: { reason: 'refusal', raw: 'refusal' }, usage: { inputTokens: 1, outputTokens: 1 } },
  ]);
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of sdkChunks(sse)) chunks.push(c);
  t.strictSame(
    chunks.map((c) => c.choices[0]?.delta),
    [{ role: 'assistant', content: '', refusal: null }, { refusal: 'No.' }, {}],
  );
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'content_filter', 'an Anthropic refusal stop is a content filter');
});

t.test('a failed answer (Gemini MALFORMED_FUNCTION_CALL) ends the stream with an error, not a stop', async (t) => {
  const sse = encodeAll([
    { type: 'start', id: 'x', model: 'm' },
    {
      type: 'finish',
      finish: { reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' },
      usage: { inputTokens: 1, outputTokens: 0 },
    },
  ]);
  const err = await (async () => {
    for await (const _ of sdkChunks(sse)) void _;
  })().catch((e: unknown) => e);
  t.type(err, OpenAI.APIError);
  t.match((err as Error).message, /MALFORMED_FUNCTION_CALL/);
});

t.test('an answer that starts with a tool call announces the role with content null in the same chunk', async (t) => {
  const enc = codec.createStreamEncoder(request());
  const frames = [
    ...enc.push({ type: 'start', id: 'x1', model: 'm' }),
    ...enc.push({ type: 'reasoning-start', index: 0, origin: 'openai-chat' }),
    ...enc.push({ type: 'reasoning-delta', index: 0, text: 'hidden' }),
    ...enc.push({ type: 'reasoning-end', index: 0 }),
    ...enc.push({ type: 'tool-input-start', index: 1, id: 'call_1', name: 'f' }),
    ...enc.push({ type: 'tool-input-delta', index: 1, json: '{}' }),
    ...enc.push({ type: 'tool-input-end', index: 1 }),
    ...enc.push({
      type: 'finish',
      finish: { reason: 'tool-calls', raw: 'tool_calls' },
      usage: { inputTokens: 1, outputTokens: 1 },
    }),
  ];
  const chunks = frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data));
  t.strictSame(chunks[0].choices[0].delta, {
    role: 'assistant',
    content: null,
    tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
    refusal: null,
  });
  t.equal(chunks[0].id, 'chatcmpl-x1');
  t.strictSame(chunks[1].choices[0].delta, { tool_calls: [{ index: 0, function: { arguments: '{}' } }] });
  t.equal(chunks[2].choices[0].finish_reason, 'tool_calls');
  t.equal(chunks.length, 3, 'reasoning produced no frames');
});
