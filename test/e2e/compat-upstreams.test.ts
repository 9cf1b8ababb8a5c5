// OpenAI-compatible servers as upstreams (issue #26, docs/providers.md "OpenAI-compatible
// servers"): each `compat` dialect's emulator behind one polygate, reached by every client family
// through its official SDK. Reasoning comes back as the family's thinking / reasoning items, the
// request carries the fields each server reads, and usage reaches the ledger.
import t from 'tap';
import { startOpenAIChatUpstream, type ChatDialect } from '../emulators/openai-chat-upstream.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { chatDriver } from './matrix/drivers/chat-driver.ts';
import { geminiDriver } from './matrix/drivers/gemini-driver.ts';
import { messagesDriver } from './matrix/drivers/messages-driver.ts';
import { responsesDriver } from './matrix/drivers/responses-driver.ts';
import { thinkingText, toolArgs, toolArgPieces, weatherTool } from './matrix/fixtures.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
type Tap = Pick<typeof t, 'match' | 'notOk'>;
const dialects = ['vllm', 'ollama', 'deepseek', 'openrouter'] as const satisfies readonly ChatDialect[];
const emus = Object.fromEntries(
  await Promise.all(dialects.map(async (d) => [d, await startOpenAIChatUpstream(d)] as const)),
) as Record<(typeof dialects)[number], Awaited<ReturnType<typeof startOpenAIChatUpstream>>>;
t.teardown(() => Promise.all(Object.values(emus).map((e) => e.close())));

const app = await startInProcessApp(
  t,
  testConfig({
    providers: Object.fromEntries(
      dialects.map((d) => [
        `p-${d}`,
        { type: 'openai', api: 'chat_completions', compat: d, base_url: emus[d].url, api_key: `sk-${d}-upstream-key` },
      ]),
    ),
    models: Object.fromEntries(dialects.map((d) => [`m-${d}`, { routes: [{ provider: `p-${d}`, model: `${d}-up` }] }])),
    admin: { token: ADMIN_TOKEN },
    usage: {
      flush_interval_ms: 50,
      prices: { models: Object.fromEntries(dialects.map((d) => [`m-${d}`, { input: 1, output: 2 }])) },
    },
  }),
);
const messages = messagesDriver(app.url, TEST_KEY);
const responses = responsesDriver(app.url, TEST_KEY);
const gemini = geminiDriver(app.url, TEST_KEY);
const chat = chatDriver(app.url, TEST_KEY);
const thinking = { kind: 'thinking', thinking: thinkingText, signature: '', text: 'Forty-two.' } as const;
const lastBody = (d: (typeof dialects)[number]): Json => emus[d].requests[emus[d].requests.length - 1].body as Json;

/** What each dialect must receive for a reasoning request of budget 2048 (effort low). */
const reasoningAsked: Record<(typeof dialects)[number], (t: Tap, b: Json) => void> = {
  vllm: (t, b) => t.match(b, { chat_template_kwargs: { enable_thinking: true }, reasoning_effort: 'low' }),
  ollama: (t, b) => t.match(b, { reasoning_effort: 'low' }),
  deepseek: (t, b) => {
    t.match(b, { thinking: { type: 'enabled' } });
    t.notOk('reasoning_effort' in b, 'DeepSeek has no effort levels');
  },
  openrouter: (t, b) => {
    t.match(b, { reasoning: { max_tokens: 2048 } });
    t.notOk('reasoning_effort' in b, 'OpenRouter reads its own reasoning object');
  },
};

for (const d of dialects) {
  t.test(`compat: ${d}`, async (t) => {
    const model = `m-${d}`;
    t.beforeEach(() => emus[d].reset());

    t.test('a Messages client with thinking gets the reasoning back as a thinking block', async (t) => {
      emus[d].script(thinking);
      const out = await messages.reasoning(model, 'think');
      t.equal(out.thinking, thinkingText);
      t.equal(out.text, 'Forty-two.');
      const body = lastBody(d);
      t.equal(body.max_tokens, 4096, 'the output limit goes in max_tokens');
      t.notOk('max_completion_tokens' in body, 'not in max_completion_tokens');
      reasoningAsked[d](t, body);
    });

    t.test('a Responses client gets the reasoning back as a reasoning item', async (t) => {
      emus[d].script(thinking);
      const out = await responses.reasoning(model, 'think');
      t.equal(out.thinking, thinkingText);
      t.equal(out.text, 'Forty-two.');
    });

    t.test('a Gemini client gets the reasoning back as a thought', async (t) => {
      emus[d].script(thinking);
      const out = await gemini.reasoning(model, 'think');
      t.equal(out.thinking, thinkingText);
      t.equal(out.text, 'Forty-two.');
    });

    t.test('a Messages client streams a tool call, and its result goes back', async (t) => {
      emus[d].script({ kind: 'tool', name: weatherTool.name, args: toolArgs, argChunks: toolArgPieces });
      const call = await messages.toolCall(model, 'weather?', weatherTool);
      t.equal(call.finish, 'tool_use', 'a tool-calling answer ends as one, whatever word the server used');
      t.same(call.call.args, JSON.parse(toolArgs));
      emus[d].script({ kind: 'text', text: 'Sunny.' });
      const next = await messages.toolResultTurn(model, call, weatherTool, 'sunny');
      t.equal(next.text, 'Sunny.');
      const sent = lastBody(d).messages as Json[];
      t.match(sent[sent.length - 1], { role: 'tool', content: 'sunny' });
    });

    t.test('a Chat client is relayed, not translated', async (t) => {
      emus[d].script({ kind: 'text', text: 'relayed' });
      const out = await chat.text(model, 'terse', 'hi');
      t.equal(out.text, 'relayed');
      t.equal(lastBody(d).model, `${d}-up`);
    });
  });
}

t.test('usage of every dialect is in the ledger, DeepSeek cache hits included', async (t) => {
  let rows: Awaited<ReturnType<typeof usage>>['rows'] = [];
  for (let i = 0; i < 50 && rows.length < dialects.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    rows = (await usage({ url: app.url } as Gateway, 'group_by=provider')).rows;
  }
  for (const d of dialects) {
    const row = rows.find((r) => r.provider === `p-${d}`);
    t.ok(row, `p-${d} has a row`);
    t.ok(row && Number(row.input_tokens) > 0 && Number(row.output_tokens) > 0, `p-${d}: tokens`);
    t.ok(row && row.cost_nano > 0, `p-${d}: a cost`);
  }
  const deepseek = rows.find((r) => r.provider === 'p-deepseek');
  t.ok(deepseek && Number(deepseek.cache_read_tokens) > 0, 'prompt_cache_hit_tokens read as cache reads');
});

t.test('a key the server refuses: a 502 naming the provider, the key in no answer', async (t) => {
  for (const d of dialects) {
    emus[d].script({ kind: 'error', status: 401, message: `Incorrect API key provided: sk-${d}-upstream-key` });
    const out = await messages.error(`m-${d}`);
    t.equal(out.status, 502, d);
    const text = JSON.stringify(out.body);
    t.match(text, `provider 'p-${d}' rejected polygate's credentials`);
    t.notMatch(text, `sk-${d}-upstream-key`);
  }
});

t.test('the upstream keys appear in no log line', async (t) => {
  const logs = JSON.stringify(app.logs());
  for (const d of dialects) t.notMatch(logs, `sk-${d}-upstream-key`);
});
