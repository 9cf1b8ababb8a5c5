// Token counting on Bedrock routes (issue #26, docs/providers.md "Bedrock"): every family's count
// (Anthropic's messages.countTokens, GenAI's models.countTokens, OpenAI's responses.inputTokens)
// is Bedrock's own CountTokens, exact, for InvokeModel routes (the Messages body relayed or the
// request translated) and Converse routes; a refused input is the client's 400.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { bedrockSigned } from './cloud-providers.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
const emu = await startBedrockUpstream();
t.teardown(() => emu.close());
t.beforeEach(() => emu.reset());
const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const aws = bedrockSigned(emu);
const app = await startInProcessApp(
  t,
  testConfig({
    providers: { inv: aws, conv: { ...aws, api: 'converse' } },
    models: {
      'claude-inv': { routes: [{ provider: 'inv', model: claude }] },
      'claude-conv': { routes: [{ provider: 'conv', model: claude }] },
    },
  }),
);
const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: app.url, maxRetries: 0 });
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: app.url, apiVersion: 'v1beta' } });
const messages = [{ role: 'user' as const, content: 'How many tokens are in this sentence?' }];
const countPath = `/model/${encodeURIComponent(claude)}/count-tokens`;
const invokeBodyOf = (body: unknown): Json =>
  JSON.parse(
    Buffer.from(((body as Json).input as { invokeModel: { body: string } }).invokeModel.body, 'base64').toString(),
  ) as Json;

t.test(
  'Messages count_tokens on InvokeModel: the client body relayed in the envelope, counted by Bedrock',
  async (t) => {
    const { data, response } = await anthropic.messages
      .countTokens({ model: 'claude-inv', messages, system: 'be brief', ...({ brand_new_field: 1 } as object) })
      .withResponse();
    t.equal(response.headers.get('x-polygate-token-count'), 'exact');
    t.same(data, { input_tokens: emu.counts[0] });
    t.equal(emu.requests[0].path, countPath);
    const inner = invokeBodyOf(emu.requests[0].body);
    t.match(inner, { anthropic_version: 'bedrock-2023-05-31', system: 'be brief', messages, brand_new_field: 1 });
    t.notOk('model' in inner, 'the model is in the path');
  },
);

t.test('GenAI and Responses counts on InvokeModel: translated, exact', async (t) => {
  const g = await genai.models.countTokens({
    model: 'claude-inv',
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
  });
  t.equal(g.totalTokens, emu.counts[0]);
  t.match(invokeBodyOf(emu.requests[0].body), { messages: [{ role: 'user' }], max_tokens: Number });
  const r = await openai.responses.inputTokens.count({ model: 'claude-inv', input: 'hello there' });
  t.equal(r.input_tokens, emu.counts[1]);
});

t.test('Converse routes count with the Converse input', async (t) => {
  const { data, response } = await anthropic.messages
    .countTokens({ model: 'claude-conv', messages, system: 'sys' })
    .withResponse();
  t.equal(response.headers.get('x-polygate-token-count'), 'exact');
  t.same(data, { input_tokens: emu.counts[0] });
  t.same(emu.requests[0].body, {
    input: {
      converse: {
        messages: [{ role: 'user', content: [{ text: messages[0].content }] }],
        system: [{ text: 'sys' }],
      },
    },
  });
});

t.test("Bedrock's refusal of the input is the client's 400", async (t) => {
  // Converse refuses a conversation that starts with the assistant.
  const e = await anthropic.messages
    .countTokens({ model: 'claude-conv', messages: [{ role: 'assistant', content: 'hi' }] })
    .catch((err: unknown) => err);
  t.match(e, { status: 400 });
  t.match(String((e as Error).message), /must start with a user message/);
});
