// Model discovery through a running polygate with the official SDKs: OpenAI's and Anthropic's
// `models.list()` / `retrieve()` on GET /v1/models (told apart by `anthropic-version`), GenAI's
// `models.list()` / `get()` on /v1 (its default) and /v1beta. Lists hold the exact names a key may
// use, globs are not listed but a name they match can be retrieved, and errors come in the
// caller's family shape.
import t from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const gw = await startInProcessGateway(
  testConfig({
    providers: { anthropic: { type: 'anthropic', base_url: 'http://127.0.0.1:9', api_key: '${UNSET_DISCOVERY_KEY}' } },
    models: {
      'echo-big': {
        routes: [{ provider: 'echo', model: 'echo' }],
        context_window: 200000,
        max_output_tokens: 8192,
        display_name: 'Echo Big',
        description: 'echoes, with limits',
      },
      'claude-*': { routes: [{ provider: 'anthropic' }, { provider: 'echo', model: 'echo', standby: true }] },
      'claude-sonnet': { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }] },
      ...Object.fromEntries(
        Array.from({ length: 5 }, (_, i) => [`page-${i}`, { routes: [{ provider: 'echo', model: 'echo' }] }]),
      ),
    },
  }),
);
t.teardown(() => gw.stop());

const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const genai = (key = TEST_KEY, apiVersion?: string) =>
  new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url, ...(apiVersion ? { apiVersion } : {}) } });
const listed = ['echo', 'echo-big', 'page-0', 'page-1', 'page-2', 'page-3', 'page-4'];

t.test('openai models.list() and retrieve()', async (t) => {
  const ids: string[] = [];
  for await (const m of openai.models.list()) {
    ids.push(m.id);
    t.equal(m.object, 'model');
    t.type(m.created, 'number');
    t.equal(m.owned_by, 'echo');
  }
  t.same(
    ids,
    listed,
    'exact names that serve now, in file order; claude-sonnet (its provider disabled) and the glob are not listed',
  );
  const got = await openai.models.retrieve('echo-big');
  t.same(got, { id: 'echo-big', object: 'model', created: 0, owned_by: 'echo' });
  const viaGlob = await openai.models.retrieve('claude-haiku-4-5');
  t.equal(viaGlob.id, 'claude-haiku-4-5', 'a name a glob matches is retrievable');
  const err = await openai.models.retrieve('nope').catch((e: unknown) => e);
  t.type(err, OpenAI.NotFoundError);
  t.match((err as InstanceType<typeof OpenAI.NotFoundError>).error, {
    message: /nope/,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
  });
  const denied = await new OpenAI({ apiKey: 'sk-wrong-key-000', baseURL: `${gw.url}/v1`, maxRetries: 0 }).models
    .list()
    .catch((e: unknown) => e);
  t.type(denied, OpenAI.AuthenticationError);
});

t.test('the allow-list filters lists and hides the rest from retrieve', async (t) => {
  const other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const ids: string[] = [];
  for await (const m of other.models.list()) ids.push(m.id);
  t.same(ids, ['echo', 'echo-big'], 'OTHER_KEY may use echo* only');
  t.type(await other.models.retrieve('page-0').catch((e: unknown) => e), OpenAI.NotFoundError);
  const g: string[] = [];
  for await (const m of await genai(OTHER_KEY).models.list()) g.push(m.name ?? '');
  t.same(g, ['models/echo', 'models/echo-big']);
});

t.test('anthropic models.list() pages with after_id / before_id / limit, and retrieve()', async (t) => {
  const all: Anthropic.ModelInfo[] = [];
  for await (const m of anthropic.models.list({ limit: 2 })) all.push(m);
  t.same(
    all.map((m) => m.id),
    listed,
    'auto-pagination walks every page',
  );
  const first = await anthropic.models.list({ limit: 3 });
  t.same(
    first.data.map((m) => m.id),
    listed.slice(0, 3),
  );
  t.equal(first.has_more, true);
  t.equal(first.last_id, 'page-0');
  const back = await anthropic.models.list({ before_id: 'page-2', limit: 2 });
  t.same(
    back.data.map((m) => m.id),
    ['page-0', 'page-1'],
  );
  const big = await anthropic.models.retrieve('echo-big');
  t.match(big, {
    type: 'model',
    id: 'echo-big',
    display_name: 'Echo Big',
    max_input_tokens: 200000,
    max_tokens: 8192,
    lifecycle: 'active',
  });
  t.ok(!Number.isNaN(Date.parse(big.created_at)));
  const err = await anthropic.models.retrieve('nope').catch((e: unknown) => e);
  t.type(err, Anthropic.NotFoundError);
  t.match((err as InstanceType<typeof Anthropic.NotFoundError>).error, {
    type: 'error',
    error: { type: 'not_found_error' },
  });
  const bad = await anthropic.models.list({ limit: 0 }).catch((e: unknown) => e);
  t.type(bad, Anthropic.BadRequestError);
  t.match((bad as Error).message, /limit/);
  const denied = await new Anthropic({ apiKey: 'sk-wrong-key-000', baseURL: gw.url, maxRetries: 0 }).models
    .list()
    .catch((e: unknown) => e);
  t.type(denied, Anthropic.AuthenticationError);
});

for (const apiVersion of ['v1', 'v1beta']) {
  t.test(`genai models.list() and get() on /${apiVersion}`, async (t) => {
    const ai = genai(TEST_KEY, apiVersion);
    const names: string[] = [];
    const pager = await ai.models.list({ config: { pageSize: 3 } });
    for await (const m of pager) names.push(m.name ?? '');
    t.same(
      names,
      listed.map((n) => `models/${n}`),
      'pageSize and nextPageToken walk every page',
    );
    const big = await ai.models.get({ model: 'echo-big' });
    t.match(big, {
      name: 'models/echo-big',
      displayName: 'Echo Big',
      description: 'echoes, with limits',
      inputTokenLimit: 200000,
      outputTokenLimit: 8192,
    });
    t.same(big.supportedActions, ['generateContent', 'streamGenerateContent', 'countTokens']);
    t.equal((await ai.models.get({ model: 'claude-opus-4' })).name, 'models/claude-opus-4');
    const err = await ai.models.get({ model: 'nope' }).catch((e: unknown) => e);
    t.type(err, ApiError);
    t.equal((err as ApiError).status, 404);
    t.match((err as Error).message, /NOT_FOUND/);
  });
}

t.test('a wrong Gemini key is a 401 in Gemini shape on /v1/models too', async (t) => {
  const res = await fetch(`${gw.url}/v1/models?key=wrong-key-0000`);
  t.equal(res.status, 401);
  t.match(await res.json(), { error: { code: 401, status: 'UNAUTHENTICATED' } });
});

t.test('discovery requests are logged and counted', async (t) => {
  const m = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(
    m,
    /polygate_requests_total\{family="chat",inbound_format="openai-chat",upstream_format="none",provider="none",mode="none",outcome="ok"\} \d+/,
  );
  t.match(m, /polygate_requests_total\{family="messages",[^}]*outcome="not-found"\} \d+/);
  t.match(m, /polygate_requests_total\{family="gemini",[^}]*outcome="ok"\} \d+/);
  await gw.matchLog(t, /"route":"\/v1\/models\/:model"/);
});
