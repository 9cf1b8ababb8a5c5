// Issue #23 items 1 and 2: every request is billed. A Chat stream relayed without
// `stream_options.include_usage` is billed from the usage polygate asks for (and the client's
// stream stays as it would have been); an upstream that reports none is estimated; a stream the
// client drops midway is billed what the upstream reported plus the output already streamed, on
// relayed and translated routes. The record says which (reported / partial / estimated).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { ADMIN_TOKEN, usage, type Row } from './usage-helpers.ts';

const chat = await startOpenAIChatUpstream();
const fault = await startFaultUpstream();
t.teardown(async () => {
  await chat.close();
  await fault.close();
});
const price = { input: 3, output: 15 };
const models = ['chat-relay', 'claude-relay', 'claude-via-chat', 'chat-via-claude'];
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      oai: { type: 'openai', base_url: chat.url, api_key: 'sk-up-chat', api: 'chat_completions' },
      faultChat: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up-fault', api: 'chat_completions' },
      faultAnth: { type: 'anthropic', base_url: fault.anthropicUrl, api_key: 'sk-up-anth' },
    },
    models: modelRoutes({
      'chat-relay': 'oai/gpt-up',
      'claude-relay': 'faultAnth/claude-up',
      'claude-via-chat': 'faultChat/gpt-up',
      'chat-via-claude': 'faultAnth/claude-up',
    }),
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50, prices: { models: Object.fromEntries(models.map((m) => [m, price])) } },
  }),
);
t.teardown(() => gw.stop());

const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });

/** The model's row once `n` requests of it are in the ledger. */
const rowOf = (model: string, n: number): Promise<Row> =>
  waitFor(`${n} records of ${model}`, async () => {
    const row = (await usage(gw, `group_by=model&model=${model}&since=1d`)).rows[0];
    return row && row.requests >= n ? row : undefined;
  });

const longText = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

t.test('a Chat stream relayed without include_usage is billed, and the client sees no usage', async (t) => {
  chat.reset();
  const stream = await openai.chat.completions.create({
    model: 'chat-relay',
    stream: true,
    messages: [{ role: 'user', content: 'count the tokens of this prompt please' }],
  });
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  t.ok(chunks.length > 2, 'the answer streamed');
  t.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'count the tokens of this prompt please');
  t.notOk(
    chunks.some((c) => 'usage' in c),
    'no chunk carries usage (nor the usage: null of an include_usage stream)',
  );
  t.notOk(
    chunks.some((c) => c.choices.length === 0),
    'no usage-only chunk',
  );
  t.match(
    chat.requests[0].body,
    { stream: true, stream_options: { include_usage: true } },
    'polygate asked the upstream for usage',
  );
  const row = await rowOf('chat-relay', 1);
  t.ok(row.input_tokens > 0 && row.output_tokens > 0, `billed ${row.input_tokens} in / ${row.output_tokens} out`);
  t.ok(row.cost_nano > 0, 'at a cost');
  t.match(row, { estimated: 0, partial: 0 }, 'from the usage the upstream reported');

  // A client that asked for usage gets its usage chunk as the upstream sent it.
  const asked = await openai.chat.completions.create({
    model: 'chat-relay',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'and this one' }],
  });
  const seen: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const c of asked) seen.push(c);
  t.match(seen.at(-1), { choices: [], usage: { prompt_tokens: Number, completion_tokens: Number } });
  t.ok(
    seen.slice(0, -1).every((c) => c.usage === null),
    'and the usage: null on every other chunk',
  );
});

t.test('the raw relayed stream holds no trace of the usage polygate asked for', async (t) => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'chat-relay', stream: true, messages: [{ role: 'user', content: 'raw bytes' }] }),
  });
  const text = await res.text();
  t.notMatch(text, /"usage"/);
  t.match(text, /data: \[DONE\]\n\n$/);
  t.equal(text.split('\n\n').filter((e) => e.startsWith('data: {')).length, 4, 'role, two words, finish: no more');
});

t.test('a Chat upstream that sends no usage at all is estimated, and the record says so', async (t) => {
  chat.reset();
  chat.script({ kind: 'text', text: longText, usage: null }, { kind: 'text', text: longText, usage: null });
  const stream = await openai.chat.completions.create({
    model: 'chat-relay',
    stream: true,
    messages: [{ role: 'user', content: 'a prompt of some length, to be estimated by the tokenizer' }],
  });
  for await (const _ of stream);
  const answer = await openai.chat.completions.create({
    model: 'chat-relay',
    messages: [{ role: 'user', content: 'a prompt of some length, to be estimated by the tokenizer' }],
  });
  t.equal(answer.choices[0].message.content, longText);
  const before = 3; // the two requests of the first test
  const row = await rowOf('chat-relay', before + 2);
  t.equal(row.estimated, 2, 'two records estimated');
  t.ok(row.output_tokens >= 60, `the streamed answer's tokens are billed (${row.output_tokens} out in all)`);
});

t.test('an Anthropic stream relayed and dropped after message_start and some text is billed', async (t) => {
  fault.reset();
  fault.script({ kind: 'ok', text: longText, inputTokens: 1000, pauseAfterChunks: 12 });
  const ac = new AbortController();
  const stream = anthropic.messages.stream(
    { model: 'claude-relay', max_tokens: 512, messages: [{ role: 'user', content: 'go' }] },
    { signal: ac.signal },
  );
  let text = '';
  await t.rejects(
    (async () => {
      for await (const e of stream) {
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
        if (text.split(' ').length > 8) ac.abort();
      }
    })(),
    'the client gave up',
  );
  const row = await rowOf('claude-relay', 1);
  fault.resume();
  t.equal(row.input_tokens, 1000, 'the input the upstream reported in message_start');
  t.ok(row.output_tokens >= 10, `the output streamed before the client left (${row.output_tokens})`);
  t.equal(row.partial, 1, 'marked partial');
  t.equal(row.cost_nano, 1000 * price.input * 1000 + row.output_tokens * price.output * 1000);
});

t.test('a translated stream dropped midway is billed: partial from Anthropic, estimated from Chat', async (t) => {
  fault.reset();
  fault.script(
    { kind: 'ok', text: longText, inputTokens: 1000, pauseAfterChunks: 12 },
    { kind: 'ok', text: longText, pauseAfterChunks: 12 },
  );
  // A Chat client on an Anthropic upstream.
  const ac = new AbortController();
  const stream = await openai.chat.completions.create(
    { model: 'chat-via-claude', stream: true, messages: [{ role: 'user', content: 'go' }] },
    { signal: ac.signal },
  );
  // The SDK ends a stream it aborted without an error: the loop stops once the client has left.
  let n = 0;
  try {
    for await (const _ of stream) {
      if (++n <= 6) continue;
      ac.abort();
      break;
    }
  } catch {
    // an abort error is the client leaving, as wanted
  }
  t.ok(n > 6, 'some of the answer streamed before the client left');
  const partial = await rowOf('chat-via-claude', 1);
  t.match(partial, { input_tokens: 1000, partial: 1 });
  t.ok(partial.output_tokens >= 5, `output streamed billed (${partial.output_tokens})`);

  // An Anthropic client on a Chat upstream, whose usage would only come at the end.
  const ac2 = new AbortController();
  const messages = anthropic.messages.stream(
    {
      model: 'claude-via-chat',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'a prompt for the tokenizer to estimate' }],
    },
    { signal: ac2.signal },
  );
  await t.rejects(
    (async () => {
      let n = 0;
      for await (const e of messages) if (e.type === 'content_block_delta' && ++n > 6) ac2.abort();
    })(),
  );
  const estimated = await rowOf('claude-via-chat', 1);
  fault.resume();
  t.equal(estimated.estimated, 1, 'marked estimated');
  t.ok(estimated.input_tokens > 5, `the prompt estimated (${estimated.input_tokens})`);
  t.ok(estimated.output_tokens >= 5, `output streamed billed (${estimated.output_tokens})`);
  t.ok(estimated.cost_nano > 0);
});

t.test('a token budget holds against Chat streams that do not ask for usage', async (t) => {
  // The case: with a 20,000-token budget, 30 of 30 such streams were served (used: 0).
  const budgeted = await startInProcessGateway(
    testConfig({
      providers: { oai: { type: 'openai', base_url: chat.url, api_key: 'sk-up-chat', api: 'chat_completions' } },
      models: { 'chat-relay': { routes: [{ provider: 'oai', model: 'gpt-up' }] } },
      admin: { token: ADMIN_TOKEN },
      usage: { flush_interval_ms: 50, budgets: { test: { tokens_per_day: 200 } } },
    }),
  );
  t.teardown(() => budgeted.stop());
  chat.reset();
  chat.respond(() => ({ kind: 'text', text: longText }));
  const client = new OpenAI({ baseURL: `${budgeted.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  let served = 0;
  let refused = 0;
  for (let i = 0; i < 10 && refused === 0; i++) {
    try {
      const stream = await client.chat.completions.create({
        model: 'chat-relay',
        stream: true,
        messages: [{ role: 'user', content: 'tell me a long story' }],
      });
      for await (const _ of stream);
      served++;
    } catch (e) {
      t.equal((e as { status?: number }).status, 429, 'refused by the budget');
      refused++;
    }
  }
  t.equal(refused, 1, 'the budget refused a request');
  t.ok(served <= 4, `${served} streams of over 100 tokens served under a 200-token budget`);
  const budgets = (await (
    await fetch(`${budgeted.url}/admin/budgets`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).json()) as { data: { used_tokens: number }[] };
  t.ok(budgets.data[0].used_tokens >= 200, `/admin/budgets says used: ${budgets.data[0].used_tokens}`);
});
