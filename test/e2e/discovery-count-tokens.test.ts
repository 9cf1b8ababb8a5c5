// Token counting through a running polygate with the official SDKs: Anthropic's
// messages.countTokens(), GenAI's models.countTokens() and OpenAI's responses.inputTokens.count().
// Exact from an upstream that counts (emulators of Anthropic count_tokens, Gemini countTokens and
// Responses input_tokens, relayed same-format or translated), estimated with gpt-tokenizer on echo
// and on upstreams that cannot count, and `x-polygate-token-count` says which.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { countTokens as o200k } from 'gpt-tokenizer';
import { anthropicCountOf } from '../emulators/anthropic-upstream.ts';
import { geminiCountOf } from '../emulators/gemini-upstream.ts';
import { responsesCountOf } from '../emulators/openai-responses-upstream.ts';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { OTHER_KEY, TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { anthropic: 'anthropic', gemini: 'gemini', responses: 'responses', chat: 'chat' },
  providers: { dead: { type: 'anthropic', base_url: 'http://127.0.0.1:9', api_key: 'sk-dead' } },
  models: {
    ...modelRoutes({
      'claude-up': 'anthropic/claude-up-1',
      'gem-up': 'gemini/gemini-up-1',
      'resp-up': 'responses/gpt-up-1',
      'chat-up': 'chat/gpt-chat-1',
      'dead-up': 'dead/x',
    }),
    'claude-*': { routes: [{ provider: 'anthropic' }] },
  },
});
const { anthropic: anth, gemini: gem, responses: resp, chat } = up;

const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url, apiVersion: 'v1beta' } });
const last = (e: { requests: { body: unknown; path: string }[] }) =>
  e.requests[e.requests.length - 1] as {
    body: Record<string, unknown>;
    path: string;
    headers: Record<string, unknown>;
  };
/** polygate's estimate of one user message: o200k tokens plus 4 for the message's framing. */
const estimateOf = (text: string): number => o200k(text) + 4;

const text = 'count the tokens of this sentence, please';
const messages = [{ role: 'user' as const, content: text }];
/** Anthropic's countTokens of `messages` (and a system prompt when given) through polygate, with the response. */
const countOf = (model: string, system?: string) =>
  anthropic.messages.countTokens({ model, messages, ...(system !== undefined && { system }) }).withResponse();

t.test('anthropic countTokens on echo is an estimate', async (t) => {
  const { data, response } = await countOf('echo');
  t.same(data, { input_tokens: estimateOf(text) });
  t.equal(response.headers.get('x-polygate-token-count'), 'estimate');
  const withTools = await anthropic.messages.countTokens({
    model: 'echo',
    messages,
    tools: [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  });
  t.ok(withTools.input_tokens > data.input_tokens + 5, 'tool definitions count too');
});

t.test('anthropic countTokens relayed to an Anthropic upstream is exact', async (t) => {
  const { data, response } = await countOf('claude-up', 'be brief');
  const up = last(anth);
  t.equal(up.path, '/v1/messages/count_tokens');
  t.equal(up.body.model, 'claude-up-1', 'model renamed');
  t.same(data, { input_tokens: anthropicCountOf(up.body) });
  t.equal(response.headers.get('x-polygate-token-count'), 'exact');
  t.equal(response.headers.get('x-polygate-route'), 'anthropic/claude-up-1');
  t.equal(up.headers['x-api-key'], 'sk-upstream-anthropic', "the provider's key, never the client's");
});

t.test(
  'a relayed count carries fields polygate does not know; the upstream refusing one is a 400 in Anthropic shape',
  async (t) => {
    const err = await anthropic.messages
      .countTokens({ model: 'claude-up', messages, ...({ brand_new_field: 1 } as object) })
      .catch((e: unknown) => e);
    t.equal(last(anth).body.brand_new_field, 1, 'relayed as it came');
    t.type(err, Anthropic.BadRequestError);
    t.match((err as Error).message, /brand_new_field/);
  },
);

t.test('anthropic countTokens translated to a Gemini upstream is exact', async (t) => {
  const { data, response } = await countOf('gem-up', 'be brief');
  const up = last(gem);
  t.equal(up.path, '/v1beta/models/gemini-up-1:countTokens');
  const g = up.body.generateContentRequest as Record<string, unknown>;
  t.equal(g.model, 'models/gemini-up-1');
  t.match(g, { contents: [{ role: 'user', parts: [{ text }] }], systemInstruction: { parts: [{ text: 'be brief' }] } });
  t.same(data, { input_tokens: geminiCountOf(g) });
  t.equal(response.headers.get('x-polygate-token-count'), 'exact');
});

t.test('genai countTokens: estimate on echo, exact relayed to Gemini and translated to Anthropic', async (t) => {
  const contents = [{ role: 'user', parts: [{ text }] }];
  const onEcho = await genai.models.countTokens({ model: 'echo', contents });
  t.equal(onEcho.totalTokens, estimateOf(text));
  const relayed = await genai.models.countTokens({ model: 'gem-up', contents });
  t.same(last(gem).body, { contents }, 'the client body as it came');
  t.equal(relayed.totalTokens, geminiCountOf({ contents }));
  const translated = await genai.models.countTokens({ model: 'claude-up', contents });
  const up = last(anth);
  t.equal(up.path, '/v1/messages/count_tokens');
  t.notOk('max_tokens' in up.body, 'no generation-only field reaches count_tokens');
  t.equal(translated.totalTokens, anthropicCountOf(up.body));
});

t.test('Gemini countTokens with a generateContentRequest body, and errors in Gemini shape', async (t) => {
  const post = (model: string, body: unknown) =>
    fetch(`${gw.url}/v1beta/models/${model}:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify(body),
    });
  const generateContentRequest = {
    model: 'models/gem-up',
    contents: [{ role: 'user', parts: [{ text }] }],
    systemInstruction: { parts: [{ text: 'sys' }] },
  };
  const res = await post('gem-up', { generateContentRequest });
  t.equal(res.status, 200);
  const up = last(gem).body.generateContentRequest as Record<string, unknown>;
  t.equal(up.model, 'models/gemini-up-1', 'the model inside the request renamed too');
  t.same(await res.json(), { totalTokens: geminiCountOf(up) });
  const bad = await post('echo', {});
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { code: 400, status: 'INVALID_ARGUMENT', message: /contents/ } });
  const missing = await post('nope', { contents: generateContentRequest.contents });
  t.equal(missing.status, 404);
  t.match(await missing.json(), { error: { code: 404, status: 'NOT_FOUND' } });
});

t.test('openai responses.inputTokens.count(): estimate on echo, exact relayed and translated', async (t) => {
  const onEcho = await openai.responses.inputTokens.count({ model: 'echo', input: text }).withResponse();
  t.same(onEcho.data, { object: 'response.input_tokens', input_tokens: estimateOf(text) });
  t.equal(onEcho.response.headers.get('x-polygate-token-count'), 'estimate');
  const relayed = await openai.responses.inputTokens.count({ model: 'resp-up', input: text, instructions: 'be brief' });
  const up = last(resp);
  t.equal(up.path, '/v1/responses/input_tokens');
  t.same(up.body, { model: 'gpt-up-1', input: text, instructions: 'be brief' });
  t.equal(relayed.input_tokens, responsesCountOf(up.body));
  const translated = await openai.responses.inputTokens.count({ model: 'claude-up', input: text });
  t.equal(translated.input_tokens, anthropicCountOf(last(anth).body));
});

t.test('an upstream without a count endpoint, or one that fails, gets an estimate with a warning', async (t) => {
  const before = chat.requests.length;
  const viaChat = await countOf('chat-up');
  t.equal(viaChat.data.input_tokens, estimateOf(text));
  t.equal(viaChat.response.headers.get('x-polygate-token-count'), 'estimate');
  t.equal(chat.requests.length, before, 'Chat Completions cannot count: not asked');
  const dead = await countOf('dead-up');
  t.equal(dead.data.input_tokens, estimateOf(text));
  t.equal(dead.response.headers.get('x-polygate-token-count'), 'estimate');
  t.match(dead.response.headers.get('x-polygate-warnings'), /provider 'dead' could not count/);
});

t.test('a name a glob matches counts upstream under the client name; the allow-list applies', async (t) => {
  await anthropic.messages.countTokens({ model: 'claude-haiku-4-5', messages });
  t.equal(last(anth).body.model, 'claude-haiku-4-5');
  const other = new Anthropic({ apiKey: OTHER_KEY, baseURL: gw.url, maxRetries: 0 });
  t.type(
    await other.messages.countTokens({ model: 'claude-up', messages }).catch((e: unknown) => e),
    Anthropic.PermissionDeniedError,
  );
  t.type(
    await anthropic.messages.countTokens({ model: 'nope', messages }).catch((e: unknown) => e),
    Anthropic.NotFoundError,
  );
  const bad = await anthropic.messages.countTokens({ model: 'echo', messages: 'x' as never }).catch((e: unknown) => e);
  t.type(bad, Anthropic.BadRequestError);
  t.match((bad as Error).message, /messages/);
});

t.test('the emulators count for the SDKs pointed straight at them', async (t) => {
  const direct = await new Anthropic({ apiKey: 'k', baseURL: anth.url, maxRetries: 0 }).messages.countTokens({
    model: 'm',
    messages,
  });
  t.equal(direct.input_tokens, anthropicCountOf({ model: 'm', messages }));
  const g = await new GoogleGenAI({
    apiKey: 'k',
    httpOptions: { baseUrl: gem.url, apiVersion: 'v1beta' },
  }).models.countTokens({ model: 'm', contents: text });
  t.type(g.totalTokens, 'number');
  const r = await new OpenAI({ apiKey: 'k', baseURL: resp.url, maxRetries: 0 }).responses.inputTokens.count({
    model: 'm',
    input: text,
  });
  t.equal(r.input_tokens, responsesCountOf({ model: 'm', input: text }));
});

t.test('count requests are logged and counted with their upstream', async (t) => {
  const m = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(
    m,
    /polygate_requests_total\{family="messages",inbound_format="anthropic-messages",upstream_format="anthropic-messages",provider="anthropic",mode="passthrough",outcome="ok"\} \d+/,
  );
  t.match(
    m,
    /polygate_requests_total\{family="gemini",inbound_format="gemini",upstream_format="anthropic-messages",provider="anthropic",mode="translate",outcome="ok"\} \d+/,
  );
  await gw.matchLog(t, /"route":"\/v1\/messages\/count_tokens"/);
});
