// The Messages family end to end: the official Anthropic SDK against a running polygate routed to
// (a) echo, (b) an emulated Anthropic upstream (pass-through), (c) an emulated OpenAI Chat
// Completions upstream (translation). The emulators record what reached them.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayWithUpstreams } from '../helpers/gateway-with-upstreams.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { pixel, toolArgPieces, toolArgs } from './matrix/fixtures.ts';

import type { Json } from '../helpers/json.ts';

const { gw, anth, oai } = await gatewayWithUpstreams(t, {
  providers: {
    // Port 1 on loopback refuses connections.
    dead: { type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'sk-upstream-dead' },
  },
  models: modelRoutes({
    'claude-pass': 'anth/claude-upstream-1',
    'claude-via-openai': 'oai/gpt-upstream-1',
    'fallback-500': ['oai/gpt-upstream-1', 'anth/claude-upstream-2'],
    'fallback-refused': ['dead/gpt-dead', 'echo/echo-1'],
  }),
});
const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const last = <T>(xs: T[]): T => xs[xs.length - 1];

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city'],
  },
};

const targets = [
  { name: 'echo', model: 'echo', emu: undefined },
  { name: 'anthropic pass-through', model: 'claude-pass', emu: anth },
  { name: 'openai-chat translation', model: 'claude-via-openai', emu: oai },
] as const;

for (const target of targets) {
  t.test(target.name, async (t) => {
    t.beforeEach(() => target.emu?.reset());

    t.test('text', async (t) => {
      const msg = await client.messages.create({
        model: target.model,
        max_tokens: 128,
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'say hello back' }],
      });
      t.equal(msg.type, 'message');
      t.equal(msg.role, 'assistant');
      t.equal(
        msg.model,
        target.emu === anth ? 'claude-upstream-1' : target.model,
        'pass-through relays the upstream model; translation reports the client name',
      );
      t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'say hello back');
      t.equal(msg.stop_reason, 'end_turn');
      t.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0, 'usage reported');
      if (target.emu) {
        const got = last(target.emu.requests);
        const body = got.body as Json;
        if (target.emu === anth) {
          t.equal(body.system, 'You are terse.', 'system stays top-level');
          t.equal(body.model, 'claude-upstream-1', 'model name rewritten');
          t.equal(got.headers['x-api-key'], 'sk-upstream-anthropic', 'upstream key, not the client key');
          t.notOk(String(got.headers.authorization ?? '').includes(TEST_KEY), 'client key never forwarded');
        } else {
          t.same(body.messages[0], { role: 'system', content: 'You are terse.' }, 'system becomes the first message');
          t.equal(body.model, 'gpt-upstream-1');
          t.equal(got.headers.authorization, 'Bearer sk-upstream-openai', 'upstream key, not the client key');
          t.notOk(got.headers['x-api-key'], 'client key never forwarded');
        }
      }
    });

    t.test('streaming text', async (t) => {
      target.emu?.script({ kind: 'text', text: 'one two three four', chunks: ['one ', 'two ', 'three ', 'four'] });
      const prompt = target.emu ? 'ignored' : 'one two three four';
      const stream = client.messages.stream({
        model: target.model,
        max_tokens: 64,
        messages: [{ role: 'user', content: prompt }],
      });
      const deltas: string[] = [];
      stream.on('text', (d) => deltas.push(d));
      const msg = await stream.finalMessage();
      t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'one two three four');
      t.ok(deltas.length >= 2, `arrived in ${deltas.length} deltas`);
      t.equal(msg.stop_reason, 'end_turn');
      if (target.emu === oai)
        t.same(
          (last(oai.requests).body as Json).stream_options,
          { include_usage: true },
          'usage always requested upstream',
        );
    });

    t.test('tool call, streamed, then the tool_result turn', async (t) => {
      target.emu?.script({
        kind: 'tool',
        name: 'get_weather',
        args: toolArgs,
        id: 'toolu_01A',
        argChunks: toolArgPieces,
      });
      const stream = client.messages.stream({
        model: target.model,
        max_tokens: 256,
        tools: [weather],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [{ role: 'user', content: 'weather in Paris?' }],
      });
      const pieces: string[] = [];
      stream.on('streamEvent', (e) => {
        if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') pieces.push(e.delta.partial_json);
      });
      const msg = await stream.finalMessage();
      const use = msg.content.find((b) => b.type === 'tool_use');
      t.ok(use, 'a tool_use block');
      if (!use || use.type !== 'tool_use') return;
      t.equal(use.name, 'get_weather');
      t.equal(msg.stop_reason, 'tool_use');
      if (target.emu) {
        t.equal(pieces.join(''), toolArgs, 'input_json_delta pieces rebuild the upstream arguments exactly');
        t.same(use.input, { city: 'Paris', days: 3 });
      } else {
        t.same(use.input, { city: 'echo', days: 1 }, 'echo calls the forced tool with schema-valid arguments');
      }

      target.emu?.reset();
      const second = await client.messages.create({
        model: target.model,
        max_tokens: 128,
        tools: [weather],
        messages: [
          { role: 'user', content: 'weather in Paris?' },
          { role: 'assistant', content: msg.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny, 21C' }] },
        ],
      });
      t.equal(
        second.content[0].type === 'text' && second.content[0].text,
        'sunny, 21C',
        'answer built on the tool result',
      );
      if (target.emu === anth) {
        const body = last(anth.requests).body as Json;
        t.same(body.tools[0].name, 'get_weather', 'tools relayed');
        t.same(body.messages[2].content[0], { type: 'tool_result', tool_use_id: use.id, content: 'sunny, 21C' });
      } else if (target.emu === oai) {
        const body = last(oai.requests).body as Json;
        t.same(body.tools[0], {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather for a city', parameters: weather.input_schema },
        });
        const assistant = body.messages.find((m: Json) => m.role === 'assistant');
        t.equal(assistant.tool_calls[0].id, use.id);
        // Messages carries tool input as an object, so the second turn re-serializes it: equal as JSON.
        t.same(JSON.parse(assistant.tool_calls[0].function.arguments), JSON.parse(toolArgs), 'arguments carried back');
        const tool = body.messages.find((m: Json) => m.role === 'tool');
        t.same({ id: tool.tool_call_id, content: tool.content }, { id: use.id, content: 'sunny, 21C' });
      }
    });

    t.test('thinking with signature', async (t) => {
      target.emu?.script({
        kind: 'thinking',
        thinking: 'Let me think about it.',
        signature: 'sig-abc123==',
        text: 'Done thinking.',
      });
      const stream = client.messages.stream({
        model: target.model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: [{ role: 'user', content: 'Done thinking.' }],
      });
      const msg = await stream.finalMessage();
      const thinking = msg.content.find((b) => b.type === 'thinking');
      t.ok(thinking, 'a thinking block');
      const text = msg.content.find((b) => b.type === 'text');
      t.equal(text?.type === 'text' && text.text, 'Done thinking.');
      if (target.emu === anth && thinking?.type === 'thinking') {
        t.equal(thinking.thinking, 'Let me think about it.');
        t.equal(thinking.signature, 'sig-abc123==', 'signature relayed byte-exact');
        t.same((last(anth.requests).body as Json).thinking, { type: 'enabled', budget_tokens: 2048 });
      }
      if (target.emu === oai && thinking?.type === 'thinking') {
        t.equal(thinking.thinking, 'Let me think about it.');
        t.ok(
          ['low', 'minimal', 'medium'].includes((last(oai.requests).body as Json).reasoning_effort),
          'budget mapped to an effort',
        );
      }
    });

    t.test('image input', async (t) => {
      const msg = await client.messages.create({
        model: target.model,
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
              { type: 'text', text: 'what is this?' },
            ],
          },
        ],
      });
      t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'what is this?');
      if (target.emu === anth) {
        t.same((last(anth.requests).body as Json).messages[0].content[0], {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: pixel },
        });
      } else if (target.emu === oai) {
        const parts = (last(oai.requests).body as Json).messages.at(-1).content as Json[];
        t.equal(parts.find((p) => p.type === 'image_url')?.image_url.url, `data:image/png;base64,${pixel}`);
      }
    });

    if (target.emu) {
      const emu = target.emu;
      t.test('upstream 429 becomes rate_limit_error', async (t) => {
        emu.script({ kind: 'error', status: 429, message: 'slow down', retryAfter: 7 });
        const err = await client.messages
          .create({ model: target.model, max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
          .catch((e: unknown) => e);
        t.type(err, Anthropic.RateLimitError);
        const e = err as InstanceType<typeof Anthropic.RateLimitError>;
        t.equal((e.error as Json)?.error?.type, 'rate_limit_error');
        t.equal(e.headers?.get('retry-after'), '7', 'retry-after relayed');
      });
      t.test('upstream 500 becomes a server error', async (t) => {
        emu.script({ kind: 'error', status: 500, message: 'boom' });
        const err = await client.messages
          .create({ model: target.model, max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
          .catch((e: unknown) => e);
        t.type(err, Anthropic.InternalServerError);
        const type = ((err as InstanceType<typeof Anthropic.APIError>).error as Json)?.error?.type;
        // Pass-through relays Anthropic's own body; translation answers in the spec's words.
        t.equal(type, emu === anth ? 'api_error' : 'server_error');
      });
      t.test('an upstream failing after the first byte ends the stream with an error event', async (t) => {
        emu.script({ kind: 'cut', text: 'partial' });
        const stream = client.messages.stream({
          model: target.model,
          max_tokens: 16,
          messages: [{ role: 'user', content: 'x' }],
        });
        const err = await stream.finalMessage().catch((e: unknown) => e);
        t.type(err, Error, 'the SDK surfaces an error, not a silent end');
      });
    }
  });
}

t.test('401 for a missing or wrong key, in the Messages shape', async (t) => {
  const bad = new Anthropic({ apiKey: 'sk-wrong', baseURL: gw.url, maxRetries: 0 });
  const err = await bad.messages
    .create({ model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.type(err, Anthropic.AuthenticationError);
  t.equal(((err as InstanceType<typeof Anthropic.APIError>).error as Json)?.error?.type, 'authentication_error');
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: '{}',
  });
  t.equal(res.status, 401);
  t.same((await res.json()).type, 'error');
});

t.test('older clients: x-api-key and anthropic-version 2023-06-01', async (t) => {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY },
    body: JSON.stringify({ model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'legacy' }] }),
  });
  t.equal(res.status, 200);
  t.equal((await res.json()).content[0].text, 'legacy');
});

t.test('unknown model 404, model outside the allow-list 403', async (t) => {
  const e404 = await client.messages
    .create({ model: 'nope', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.type(e404, Anthropic.NotFoundError);
  const other = new Anthropic({ apiKey: 'sk-test-key-0002', baseURL: gw.url, maxRetries: 0 });
  const e403 = await other.messages
    .create({ model: 'claude-pass', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.type(e403, Anthropic.PermissionDeniedError);
});

t.test('bad JSON and a wrong content type get clear errors', async (t) => {
  const headers = { 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY };
  const bad = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: '{"model": ',
  });
  t.equal(bad.status, 400);
  const body = await bad.json();
  t.equal(body.error.type, 'invalid_request_error');
  t.match(body.error.message, /not valid JSON/);
  const text = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'text/plain' },
    body: 'hi',
  });
  t.equal(text.status, 415);
  t.match((await text.json()).error.message, /content-type/);
});

t.test('fallback: an upstream 500 before any byte sends the request to the next route', async (t) => {
  oai.reset();
  anth.reset();
  oai.script({ kind: 'error', status: 500, message: 'boom' });
  const res = await client.messages
    .create({ model: 'fallback-500', max_tokens: 16, messages: [{ role: 'user', content: 'rescued' }] })
    .withResponse();
  t.equal(res.data.content[0].type === 'text' && res.data.content[0].text, 'rescued');
  t.equal(res.response.headers.get('x-polygate-route'), 'anth/claude-upstream-2');
  t.equal(oai.requests.length, 1, 'the first route was tried');
  t.equal(anth.requests.length, 1, 'the second route served');
});

t.test('fallback: a refused connection sends the request to the next route, streamed too', async (t) => {
  const res = await client.messages
    .create({ model: 'fallback-refused', max_tokens: 16, messages: [{ role: 'user', content: 'still here' }] })
    .withResponse();
  t.equal(res.data.content[0].type === 'text' && res.data.content[0].text, 'still here');
  t.equal(res.response.headers.get('x-polygate-route'), 'echo/echo-1');
  const msg = await client.messages
    .stream({ model: 'fallback-refused', max_tokens: 16, messages: [{ role: 'user', content: 'streamed rescue' }] })
    .finalMessage();
  t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'streamed rescue');
});

t.test('pass-through keeps its upstream connection alive across requests', async (t) => {
  anth.reset();
  // Each request on a fresh client connection that asks to be closed: the client's connection
  // management is its own, and must not make polygate open a new upstream connection per request.
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': TEST_KEY,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
        connection: 'close',
      },
      body: JSON.stringify({
        model: 'claude-pass',
        max_tokens: 16,
        messages: [{ role: 'user', content: `turn ${i}` }],
      }),
    });
    t.equal(res.status, 200);
    t.equal(((await res.json()) as Json).content[0].text, `turn ${i}`);
  }
  t.equal(anth.requests.length, 4);
  t.same(new Set(anth.requests.map((r) => r.remotePort)).size, 1, 'all four relayed over one upstream connection');
  for (const r of anth.requests)
    t.not(r.headers.connection, 'close', "the client's Connection: close stays with the client");

  // A body the client sent chunked is relayed with a length, never with both framings.
  anth.reset();
  const body = JSON.stringify({
    model: 'claude-pass',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'chunked in' }],
  });
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: new Blob([body]).stream(),
    duplex: 'half',
  } as RequestInit);
  t.equal(res.status, 200);
  t.equal(((await res.json()) as Json).content[0].text, 'chunked in');
  t.equal(anth.requests[0].headers['transfer-encoding'], undefined, 'no transfer-encoding upstream');
  t.ok(Number(anth.requests[0].headers['content-length']) > 0, 'a content-length instead');
});

t.test('a client that disconnects aborts the upstream request', async (t) => {
  // An Anthropic-format upstream that sends one delta and then holds the stream open, noting when
  // its socket closes: only polygate aborting the upstream request can close it.
  let closed!: () => void;
  const upstreamClosed = new Promise<void>((ok) => (closed = ok));
  const slow = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (name: string, data: unknown): boolean => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    ev('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_slow',
        type: 'message',
        role: 'assistant',
        model: 'slow',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    });
    ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'first ' } });
    res.on('close', () => closed());
  });
  await new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok));
  t.teardown(() => slow.close());
  const port = (slow.address() as AddressInfo).port;
  const gw2 = await startInProcessGateway(
    testConfig({
      providers: { slow: { type: 'anthropic', base_url: `http://127.0.0.1:${port}`, api_key: 'sk-upstream-slow' } },
      models: { slow: { routes: [{ provider: 'slow', model: 'slow-1' }] } },
    }),
  );
  t.teardown(() => gw2.stop());
  const c2 = new Anthropic({ apiKey: TEST_KEY, baseURL: gw2.url, maxRetries: 0 });
  const ac = new AbortController();
  const stream = c2.messages.stream(
    { model: 'slow', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] },
    { signal: ac.signal },
  );
  const firstText = await new Promise<string>((ok) => stream.on('text', (d) => ok(d)));
  t.equal(firstText, 'first ', 'the first delta reached the client');
  ac.abort();
  await stream.done().catch(() => undefined);
  await upstreamClosed;
  t.pass('the upstream connection was closed after the client went away');
});
