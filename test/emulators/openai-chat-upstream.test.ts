// The official `openai` SDK pointed straight at the emulator must parse everything it sends:
// that is what makes the emulator an honest stand-in for the real Chat Completions API.
import t from 'tap';
import OpenAI from 'openai';
import { startOpenAIChatUpstream } from './openai-chat-upstream.ts';
import { assertOpenAIPost, assertRateLimited, emulatorForFile, scriptWeatherCall } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startOpenAIChatUpstream);
const client = new OpenAI({ apiKey: 'sk-emulator-test', baseURL: emu.url, maxRetries: 0 });

/** The plain request the scripted texts and errors below answer; `failingX` resolves to what it throws. */
const X = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'x' }] };
const streamX = () => client.chat.completions.create({ ...X, stream: true });
const failingX = () => client.chat.completions.create(X).catch((e: unknown) => e);

t.test('chat.completions.create answers with the scripted text and records the request', async (t) => {
  emu.script({ kind: 'text', text: 'Hello there.' });
  const res = await client.chat.completions.create({
    model: 'gpt-test',
    messages: [
      { role: 'system', content: 'terse' },
      { role: 'user', content: 'hi' },
    ],
  });
  t.equal(res.object, 'chat.completion');
  t.match(res.id, /^chatcmpl-/);
  t.equal(res.model, 'gpt-test');
  t.equal(res.choices[0].message.content, 'Hello there.');
  t.equal(res.choices[0].finish_reason, 'stop');
  t.ok(res.usage && res.usage.prompt_tokens > 0 && res.usage.completion_tokens > 0, 'plausible non-zero usage');
  t.equal(res.usage?.total_tokens, (res.usage?.prompt_tokens ?? 0) + (res.usage?.completion_tokens ?? 0));
  t.equal(emu.requests.length, 1);
  const got = emu.requests[0];
  assertOpenAIPost(t, got, '/v1/chat/completions', 'sk-emulator-test', {
    model: 'gpt-test',
    messages: [
      { role: 'system', content: 'terse' },
      { role: 'user', content: 'hi' },
    ],
  });
});

t.test('with nothing scripted it echoes the last user text', async (t) => {
  const res = await client.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'repeat me' }] }],
  });
  t.equal(res.choices[0].message.content, 'repeat me');
});

t.test('stream with include_usage: deltas, finish chunk, then the usage chunk', async (t) => {
  emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
  const stream = await client.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'count' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const deltas: string[] = [];
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | null | undefined;
  let usageChunkChoices = -1;
  for await (const chunk of stream) {
    t.equal(chunk.object, 'chat.completion.chunk');
    const c = chunk.choices[0];
    if (c?.delta.content) deltas.push(c.delta.content);
    if (c?.finish_reason) finish = c.finish_reason;
    if (chunk.usage) {
      usage = chunk.usage;
      usageChunkChoices = chunk.choices.length;
      t.equal(finish, 'stop', 'the usage chunk comes after the finish chunk');
    }
  }
  t.same(deltas, ['one ', 'two ', 'three']);
  t.equal(finish, 'stop');
  t.ok(usage && usage.prompt_tokens > 0 && usage.completion_tokens > 0, 'usage arrived');
  t.equal(usageChunkChoices, 0, 'the usage chunk has choices: []');
  t.same((emu.requests[0].body as { stream_options?: unknown }).stream_options, { include_usage: true });
});

t.test('stream without include_usage sends no usage chunk', async (t) => {
  emu.script({ kind: 'text', text: 'a b' });
  const stream = await streamX();
  let sawUsage = false;
  let text = '';
  for await (const chunk of stream) {
    if (chunk.usage) sawUsage = true;
    text += chunk.choices[0]?.delta.content ?? '';
  }
  t.equal(text, 'a b');
  t.notOk(sawUsage);
});

t.test('streamed tool call: accumulated arguments equal the scripted ones', async (t) => {
  const args = '{"city": "Paris", "days": 3}';
  scriptWeatherCall(emu, 'call_abc123', args, ['{"city": ', '"Par', 'is", "da', 'ys": 3}']);
  const stream = await client.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'weather?' }],
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    ],
    stream: true,
  });
  const calls = new Map<number, { id?: string; name?: string; args: string }>();
  let finish: string | null = null;
  let fragments = 0;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    for (const tc of c?.delta.tool_calls ?? []) {
      const acc = calls.get(tc.index) ?? { args: '' };
      if (tc.id) acc.id = tc.id;
      if (tc.function?.name) acc.name = tc.function.name;
      if (tc.function?.arguments) {
        acc.args += tc.function.arguments;
        fragments++;
      }
      calls.set(tc.index, acc);
    }
    if (c?.finish_reason) finish = c.finish_reason;
  }
  t.same([...calls.entries()], [[0, { id: 'call_abc123', name: 'get_weather', args }]]);
  t.equal(fragments, 4, 'arguments arrived in the scripted pieces');
  t.equal(finish, 'tool_calls');
});

t.test('the SDK stream helper rebuilds a tool-call-only message with content null', async (t) => {
  emu.script({ kind: 'tool', name: 'lookup', args: '{"q":"x"}', argChunks: ['{"q"', ':"x"}'] });
  const runner = client.chat.completions.stream({
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'q' }],
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
  });
  const final = await runner.finalChatCompletion();
  t.equal(
    final.choices[0].message.tool_calls?.[0]?.type === 'function' &&
      final.choices[0].message.tool_calls[0].function.arguments,
    '{"q":"x"}',
  );
  t.equal(final.choices[0].message.content, null, 'the first chunk carried content: null with the tool call');
  t.equal(final.choices[0].finish_reason, 'tool_calls');
});

t.test('thinking: reasoning_content deltas, then the text', async (t) => {
  emu.script({ kind: 'thinking', thinking: 'Let me think.', signature: 'sig', text: 'Done.' });
  const stream = await streamX();
  let reasoning = '';
  let text = '';
  for await (const chunk of stream) {
    const d = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    reasoning += d?.reasoning_content ?? '';
    text += d?.content ?? '';
  }
  t.equal(reasoning, 'Let me think.');
  t.equal(text, 'Done.');
});

t.test('429 surfaces as RateLimitError with retry-after', async (t) => {
  emu.script({ kind: 'error', status: 429, message: 'Rate limit reached', retryAfter: 3 });
  const e = assertRateLimited(t, await failingX(), OpenAI.RateLimitError, '3');
  t.equal(e.code, 'rate_limit_exceeded');
  t.match(e.message, /Rate limit reached/);
});

t.test('500 surfaces as InternalServerError', async (t) => {
  emu.script({ kind: 'error', status: 500, message: 'boom' });
  const err = await failingX();
  t.type(err, OpenAI.InternalServerError);
  t.equal((err as InstanceType<typeof OpenAI.InternalServerError>).type, 'server_error');
});

t.test('cut: the SDK sees the stream fail, not a clean end', async (t) => {
  emu.script({ kind: 'cut', text: 'partial' });
  const stream = await streamX();
  let text = '';
  const err = await (async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  })().catch((e: unknown) => e);
  t.equal(text, 'partial', 'the first chunk arrived');
  t.type(err, Error);
});
