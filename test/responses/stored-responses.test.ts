// Family D state (stored responses) on every upstream type, with the official openai SDK against a
// running polygate: chains through previous_response_id, a chain moving between upstreams,
// store:false, retrieval, input_items pagination, delete, workspace isolation and truncation.
import t from 'tap';
import OpenAI from 'openai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { modelRoutes, routesTo } from '../helpers/model-routes.ts';
import { OTHER_KEY, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { conversationOf, systemOf } from './conversation-texts.ts';

import type { Json } from '../helpers/json.ts';
const [anth, chat, resp, gem] = await Promise.all([
  startAnthropicUpstream(),
  startOpenAIChatUpstream(),
  startOpenAIResponsesUpstream(),
  startGeminiUpstream(),
]);
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      anth: { type: 'anthropic', base_url: anth.url, api_key: 'sk-up-a' },
      chat: { type: 'openai', base_url: chat.url, api_key: 'sk-up-c', api: 'chat_completions' },
      resp: { type: 'openai', base_url: resp.url, api_key: 'sk-up-r', api: 'responses' },
      gem: { type: 'gemini', base_url: gem.url, api_key: 'sk-up-g' },
    },
    models: {
      ...modelRoutes({
        'via-anthropic': 'anth/claude-up',
        'via-chat': 'chat/gpt-up',
        'via-responses': 'resp/gpt-resp-up',
        'via-gemini': 'gem/gemini-up',
      }),
      'echo-small': { ...routesTo('echo/echo-1'), context_window: 60 },
      'chat-small': { ...routesTo('chat/gpt-up'), context_window: 60 },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await Promise.all([anth.close(), chat.close(), resp.close(), gem.close()]);
});
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

const upstreams = [
  { model: 'via-chat', emu: chat, format: 'openai-chat' },
  { model: 'via-responses', emu: resp, format: 'openai-responses' },
  { model: 'via-anthropic', emu: anth, format: 'anthropic' },
  { model: 'via-gemini', emu: gem, format: 'gemini' },
] as const;

for (const u of upstreams) {
  t.test(`three turns through previous_response_id on ${u.format}`, async (t) => {
    u.emu.reset();
    const r1 = await client.responses.create({ model: u.model, instructions: 'Be brief.', input: 'turn one' });
    t.equal(r1.output_text, 'turn one');
    t.equal(
      systemOf(u.format, u.emu.requests[0].body as Json),
      'Be brief.',
      'instructions of the first turn reach the upstream',
    );
    const r2 = await client.responses.create({ model: u.model, input: 'turn two', previous_response_id: r1.id });
    t.equal(r2.previous_response_id, r1.id, 'the chain is echoed');
    const r3 = await client.responses.create({
      model: u.model,
      input: [{ role: 'user', content: 'turn three' }],
      previous_response_id: r2.id,
    });
    t.equal(r3.output_text, 'turn three');
    const last = u.emu.requests[u.emu.requests.length - 1].body as Json;
    if (u.format === 'openai-responses') {
      // Issue #29: every turn was relayed as sent (store on), so the upstream stored each one and
      // resolves the chain itself; polygate stored them too (a later turn may go elsewhere).
      t.equal(last.previous_response_id, r2.id, 'relayed as sent, for the upstream to resolve');
      t.same(last.input, [{ role: 'user', content: 'turn three' }]);
      const moved = await client.responses.create({
        model: 'via-chat',
        input: 'turn four',
        previous_response_id: r3.id,
      });
      t.equal(moved.output_text, 'turn four');
      t.same(
        conversationOf('openai-chat', chat.requests[chat.requests.length - 1].body as Json).map((m) => m.text),
        ['turn one', 'turn one', 'turn two', 'turn two', 'turn three', 'turn three', 'turn four'],
        'the chain polygate stored from the relays continues on another format',
      );
      return;
    }
    t.same(
      conversationOf(u.format, last),
      [
        { role: 'user', text: 'turn one' },
        { role: 'assistant', text: 'turn one' },
        { role: 'user', text: 'turn two' },
        { role: 'assistant', text: 'turn two' },
        { role: 'user', text: 'turn three' },
      ],
      'the upstream received the whole history in its own format',
    );
    t.equal(systemOf(u.format, last), undefined, 'instructions are not carried over');
  });
}

t.test('a chain started on one upstream continues on another; reasoning stays with its provider', async (t) => {
  anth.reset();
  chat.reset();
  anth.script({ kind: 'thinking', thinking: 'Considering.', signature: 'sig-xyz', text: 'answer one' });
  const r1 = await client.responses.create({
    model: 'via-anthropic',
    input: 'question one',
    reasoning: { effort: 'low', summary: 'auto' },
  });
  t.equal(r1.output_text, 'answer one');
  t.ok(
    r1.output.some((o) => o.type === 'reasoning'),
    'reasoning item returned',
  );
  const r2raw = await client.responses
    .create({ model: 'via-chat', input: 'question two', previous_response_id: r1.id })
    .withResponse();
  t.match(
    r2raw.response.headers.get('x-polygate-warnings') ?? '',
    /reasoning/,
    'reasoning from another provider is dropped with a warning',
  );
  t.same(conversationOf('openai-chat', chat.requests[0].body as Json), [
    { role: 'user', text: 'question one' },
    { role: 'assistant', text: 'answer one' },
    { role: 'user', text: 'question two' },
  ]);
  const r3 = await client.responses.create({
    model: 'via-anthropic',
    input: 'question three',
    previous_response_id: r2raw.data.id,
  });
  t.equal(r3.output_text, 'question three');
  const body = anth.requests[anth.requests.length - 1].body as Json;
  const thinking = body.messages[1].content.find((b: Json) => b.type === 'thinking');
  t.same(
    thinking && { thinking: thinking.thinking, signature: thinking.signature },
    { thinking: 'Considering.', signature: 'sig-xyz' },
    'signed reasoning replayed to the provider that made it',
  );
});

t.test('store: false is not retrievable', async (t) => {
  const r = await client.responses.create({ model: 'echo', input: 'ephemeral', store: false });
  t.equal((r as unknown as Json).store, false);
  const err = await client.responses.retrieve(r.id).catch((e: unknown) => e);
  t.type(err, OpenAI.NotFoundError);
  const cont = await client.responses
    .create({ model: 'echo', input: 'x', previous_response_id: r.id })
    .catch((e: unknown) => e);
  t.type(cont, OpenAI.NotFoundError);
});

t.test('retrieve, input_items pagination and delete', async (t) => {
  const input = ['a', 'b', 'c', 'd', 'e'].map((text) => ({ role: 'user' as const, content: text }));
  const r = await client.responses.create({ model: 'echo', input });
  const got = await client.responses.retrieve(r.id);
  t.equal(got.id, r.id);
  t.equal(got.output_text, r.output_text);
  t.same(got.output, r.output, 'the stored object is the one returned');

  const asc = await client.responses.inputItems.list(r.id, { order: 'asc', limit: 2 });
  const texts = (page: { data: Json[] }): string[] => page.data.map((i) => i.content[0].text);
  t.same(texts(asc), ['a', 'b']);
  t.equal(asc.has_more, true);
  const next = await client.responses.inputItems.list(r.id, { order: 'asc', limit: 2, after: asc.data[1].id! });
  t.same(texts(next), ['c', 'd']);
  const all: string[] = [];
  for await (const item of client.responses.inputItems.list(r.id, { order: 'asc', limit: 2 }))
    all.push((item as Json).content[0].text);
  t.same(all, ['a', 'b', 'c', 'd', 'e'], 'the SDK auto-paginates through every item');
  const desc = await client.responses.inputItems.list(r.id, { limit: 3 });
  t.same(texts(desc), ['e', 'd', 'c'], 'newest first by default');
  // The SDK pages forwards only; `before` is the real API's backwards cursor.
  const before = await fetch(`${gw.url}/v1/responses/${r.id}/input_items?order=asc&before=${asc.data[1].id}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  t.same(texts((await before.json()) as { data: Json[] }), ['a']);

  await client.responses.delete(r.id);
  t.type(await client.responses.retrieve(r.id).catch((e: unknown) => e), OpenAI.NotFoundError, 'gone after delete');
});

t.test('item_reference resolves stored items inside the workspace', async (t) => {
  const r = await client.responses.create({ model: 'echo', input: 'referenced text' });
  const msgId = r.output[0].id!;
  const r2 = await client.responses.create({
    model: 'echo',
    input: [
      { type: 'item_reference', id: msgId },
      { role: 'user', content: 'after the reference' },
    ],
  });
  t.equal(r2.output_text, 'after the reference');
  const foreign = await other.responses
    .create({ model: 'echo', input: [{ type: 'item_reference', id: msgId }] })
    .catch((e: unknown) => e);
  t.type(foreign, OpenAI.NotFoundError, "another workspace cannot reference this workspace's items");
});

t.test("another workspace's key gets 404, exactly as for an unknown id", async (t) => {
  const r = await client.responses.create({ model: 'echo', input: 'private' });
  const e1 = (await other.responses.retrieve(r.id).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  const e2 = (await other.responses.retrieve('resp_does_not_exist').catch((e: unknown) => e)) as InstanceType<
    typeof OpenAI.APIError
  >;
  t.equal(e1.status, 404);
  t.equal(e2.status, 404);
  t.equal(
    e1.message.replace(r.id, 'ID'),
    e2.message.replace('resp_does_not_exist', 'ID'),
    'indistinguishable from an unknown id',
  );
  t.type(
    await other.responses.create({ model: 'echo', input: 'x', previous_response_id: r.id }).catch((e: unknown) => e),
    OpenAI.NotFoundError,
  );
  t.type(await other.responses.delete(r.id).catch((e: unknown) => e), OpenAI.NotFoundError);
  t.type(await other.responses.inputItems.list(r.id).catch((e: unknown) => e), OpenAI.NotFoundError);
});

t.test('truncation: disabled answers 400 on overflow, auto drops middle items', async (t) => {
  const long = Array.from({ length: 9 }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `message number ${i} with several more words in it`,
  }));
  const err = (await client.responses
    .create({ model: 'echo-small', input: long })
    .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  t.type(err, OpenAI.BadRequestError);
  t.match(err.message, /context window/);
  t.equal((err.error as Json)?.param, 'input');
  chat.reset();
  const ok = await client.responses.create({ model: 'chat-small', input: long, truncation: 'auto' });
  t.equal(ok.output_text, long[8].content, 'the newest input survives');
  const sent = conversationOf('openai-chat', chat.requests[0].body as Json);
  t.ok(sent.length < long.length, `middle items dropped (${sent.length} of ${long.length} sent)`);
  t.equal(sent[0].text, long[0].content, 'the first item is kept');
});

t.test('a streamed response is stored once completed, and continues', async (t) => {
  const stream = client.responses.stream({ model: 'echo', input: 'streamed turn' });
  const final = await stream.finalResponse();
  t.equal(final.output_text, 'streamed turn');
  const got = await client.responses.retrieve(final.id);
  t.equal(got.status, 'completed');
  t.equal(got.output_text, 'streamed turn');
  const next = await client.responses.create({ model: 'echo', input: 'and on', previous_response_id: final.id });
  t.equal(next.output_text, 'and on');
});

async function streamUntilCreated(
  model: string,
): Promise<{ id: string; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const res = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'x', stream: true }),
  });
  const reader = res.body!.getReader();
  let text = '';
  while (!/response\.output_text\.delta/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return { id: /"id":"(resp_[^"]+)"/.exec(text)![1], reader };
}

async function storedStatus(id: string): Promise<string> {
  // The record is written when the stream ends on the server, just after the client saw it end.
  for (let i = 0; i < 100; i++) {
    const r = await client.responses.retrieve(id).catch(() => undefined);
    if (r) return r.status ?? '';
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return 'never stored';
}

t.test('a stream whose upstream fails is stored as failed', async (t) => {
  chat.reset();
  chat.script({ kind: 'cut', text: 'partial' });
  const { id, reader } = await streamUntilCreated('via-chat');
  while (!(await reader.read()).done);
  t.equal(await storedStatus(id), 'failed');
});

t.test('an abandoned stream is stored as cancelled, never completed', async (t) => {
  // A Chat Completions upstream that sends one delta and then holds the stream open.
  const slow = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1, model: 'slow', choices: [{ index: 0, delta: { role: 'assistant', content: 'first ' }, finish_reason: null }] })}\n\n`,
    );
  });
  await new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok));
  t.teardown(() => {
    slow.closeAllConnections();
    slow.close();
  });
  const gw2 = await startInProcessGateway(
    testConfig({
      providers: {
        slow: {
          type: 'openai',
          base_url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1`,
          api_key: 'sk-up-slow',
        },
      },
      models: { slow: { routes: [{ provider: 'slow', model: 'slow-1' }] } },
    }),
  );
  t.teardown(() => gw2.stop());
  const res = await fetch(`${gw2.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', input: 'x', stream: true }),
  });
  const reader = res.body!.getReader();
  let text = '';
  while (!/output_text\.delta/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  const id = /"id":"(resp_[^"]+)"/.exec(text)![1];
  await reader.cancel();
  const c2 = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw2.url}/v1`, maxRetries: 0 });
  let status = 'never stored';
  for (let i = 0; i < 100 && status === 'never stored'; i++) {
    const r = await c2.responses.retrieve(id).catch(() => undefined);
    if (r) status = r.status ?? '';
    else await new Promise((ok) => setTimeout(ok, 50));
  }
  t.equal(status, 'cancelled');
});
