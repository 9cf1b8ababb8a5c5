// The official `@anthropic-ai/sdk` pointed straight at the emulator must parse everything it
// sends: that is what makes the emulator an honest stand-in for the real Messages API.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startAnthropicUpstream } from './anthropic-upstream.ts';
import { assertRateLimited, emulatorForFile, scriptWeatherCall } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startAnthropicUpstream);
const client = new Anthropic({ apiKey: 'sk-ant-emulator-test', baseURL: emu.url, maxRetries: 0 });

/** The plain request the scripted errors and cuts below answer; `failingX` resolves to what it throws. */
const X = { model: 'claude-test', max_tokens: 8, messages: [{ role: 'user' as const, content: 'x' }] };
const failingX = () => client.messages.create(X).catch((e: unknown) => e);

t.test('messages.create answers with the scripted text and records the request', async (t) => {
  emu.script({ kind: 'text', text: 'Hello there.' });
  const msg = await client.messages.create({
    model: 'claude-test',
    max_tokens: 64,
    system: 'terse',
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.match(msg.id, /^msg_01/);
  t.equal(msg.type, 'message');
  t.equal(msg.role, 'assistant');
  t.equal(msg.model, 'claude-test');
  t.same(msg.content, [{ type: 'text', text: 'Hello there.' }]);
  t.equal(msg.stop_reason, 'end_turn');
  t.equal(msg.stop_sequence, null);
  t.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0, 'plausible non-zero usage');
  t.equal(msg.usage.cache_read_input_tokens, 0);
  t.equal(emu.requests.length, 1);
  const got = emu.requests[0];
  t.equal(got.method, 'POST');
  t.equal(got.path, '/v1/messages');
  // This SDK generation presents the key as a bearer token; older ones used x-api-key.
  t.equal(
    got.headers['x-api-key'] ?? String(got.headers.authorization).replace(/^Bearer /, ''),
    'sk-ant-emulator-test',
  );
  t.match(String(got.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
  t.same(got.body, {
    model: 'claude-test',
    max_tokens: 64,
    system: 'terse',
    messages: [{ role: 'user', content: 'hi' }],
  });
});

t.test('with nothing scripted it echoes the last user text, tool results included', async (t) => {
  const plain = await client.messages.create({
    model: 'claude-test',
    max_tokens: 64,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'repeat me' }] }],
  });
  t.same(plain.content, [{ type: 'text', text: 'repeat me' }]);
  const afterTool = await client.messages.create({
    model: 'claude-test',
    max_tokens: 64,
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'w', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
  });
  t.same(afterTool.content, [{ type: 'text', text: 'sunny' }]);
});

t.test('messages.stream(...).finalMessage() rebuilds the scripted text from its chunks', async (t) => {
  emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
  const stream = client.messages.stream({
    model: 'claude-test',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'count' }],
  });
  const deltas: string[] = [];
  const events: string[] = [];
  stream.on('text', (d) => deltas.push(d));
  stream.on('streamEvent', (e) => events.push(e.type));
  const msg = await stream.finalMessage();
  t.same(deltas, ['one ', 'two ', 'three']);
  t.same(msg.content, [{ type: 'text', text: 'one two three' }]);
  t.equal(msg.stop_reason, 'end_turn');
  t.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);
  t.same(events, [
    'message_start',
    'content_block_start',
    'content_block_delta',
    'content_block_delta',
    'content_block_delta',
    'content_block_stop',
    'message_delta',
    'message_stop',
  ]);
  t.equal((emu.requests[0].body as { stream?: boolean }).stream, true);
});

t.test('the raw stream is framed as the real service frames it', async (t) => {
  emu.script({ kind: 'text', text: 'hi', chunks: ['hi'] });
  const res = await fetch(`${emu.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    }),
  });
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const text = await res.text();
  const frames = text.split('\n\n').filter((f) => f !== '');
  t.same(
    frames.map((f) => f.split('\n')[0]),
    [
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ].map((e) => `event: ${e}`),
  );
  t.ok(text.includes('event: ping\ndata: {"type": "ping"}\n\n'));
  t.ok(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
});

t.test('a streamed tool call: finalMessage input equals the scripted args', async (t) => {
  const args = '{"city": "Paris", "days": 3}';
  scriptWeatherCall(emu, 'toolu_01X', args, ['{"city": ', '"Par', 'is", "days', '": 3}']);
  const stream = client.messages.stream({
    model: 'claude-test',
    max_tokens: 64,
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'weather?' }],
  });
  const pieces: string[] = [];
  stream.on('inputJson', (partial) => pieces.push(partial));
  const msg = await stream.finalMessage();
  t.equal(msg.stop_reason, 'tool_use');
  t.same(msg.content, [{ type: 'tool_use', id: 'toolu_01X', name: 'get_weather', input: { city: 'Paris', days: 3 } }]);
  t.equal(pieces.join(''), args, 'partial_json pieces rebuild the args exactly');
});

t.test('a non-streamed tool call with text before it', async (t) => {
  emu.script({ kind: 'tool', name: 'lookup', args: '{"q":"x"}', text: 'Let me look.' });
  const msg = await client.messages.create({
    model: 'claude-test',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'find x' }],
  });
  t.equal(msg.stop_reason, 'tool_use');
  t.same(msg.content[0], { type: 'text', text: 'Let me look.' });
  t.match(msg.content[1], { type: 'tool_use', name: 'lookup', input: { q: 'x' } });
  t.match(msg.content[1].type === 'tool_use' ? msg.content[1].id : '', /^toolu_01/);
});

t.test('thinking with a signature, streamed and not', async (t) => {
  const thinking = {
    kind: 'thinking',
    thinking: 'Let me think about it.',
    signature: 'EqQBCkYIARgCIkB+sig==',
    text: 'Done.',
  } as const;
  emu.script(thinking, thinking);
  const params = {
    model: 'claude-test',
    max_tokens: 4096,
    thinking: { type: 'enabled' as const, budget_tokens: 2048 },
    messages: [{ role: 'user' as const, content: 'think' }],
  };
  const streamed = await client.messages.stream(params).finalMessage();
  const whole = await client.messages.create(params);
  for (const msg of [streamed, whole]) {
    t.same(msg.content, [
      { type: 'thinking', thinking: 'Let me think about it.', signature: 'EqQBCkYIARgCIkB+sig==' },
      { type: 'text', text: 'Done.' },
    ]);
  }
});

t.test('429 surfaces as RateLimitError with retry-after and the real body', async (t) => {
  emu.script({ kind: 'error', status: 429, message: 'Number of requests has exceeded your rate limit', retryAfter: 7 });
  const e = assertRateLimited(t, await failingX(), Anthropic.RateLimitError, '7');
  t.match(e.error, {
    type: 'error',
    error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
  });
  t.match(e.requestID, /^req_/);
});

t.test('500 surfaces as InternalServerError with api_error, also for a stream', async (t) => {
  emu.script({ kind: 'error', status: 500, message: 'boom' }, { kind: 'error', status: 500 });
  const err = await failingX();
  t.type(err, Anthropic.InternalServerError);
  t.match((err as InstanceType<typeof Anthropic.APIError>).error, {
    type: 'error',
    error: { type: 'api_error', message: 'boom' },
  });
  const streamErr = await client.messages
    .stream(X)
    .finalMessage()
    .catch((e: unknown) => e);
  t.type(streamErr, Anthropic.InternalServerError);
});

t.test('a cut stream fails in the SDK after the first delta', async (t) => {
  emu.script({ kind: 'cut', text: 'partial' });
  const stream = client.messages.stream(X);
  const deltas: string[] = [];
  stream.on('text', (d) => deltas.push(d));
  const err = await stream.finalMessage().catch((e: unknown) => e);
  t.type(err, Error);
  t.same(deltas, ['partial']);
});

t.test('requests without anthropic-version are refused like the real API', async (t) => {
  const res = await fetch(`${emu.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify(X),
  });
  t.equal(res.status, 400);
  t.match(await res.json(), { type: 'error', error: { type: 'invalid_request_error', message: /anthropic-version/ } });
});
