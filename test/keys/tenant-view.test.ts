// Issue #25 item 4: a client key reads its own key, limits, budgets (used, remaining, reset) and
// spend today at GET /v1/me, and nothing else, in the family of the credential it sent.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { OTHER_KEY, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { admin, ADMIN, type Created } from './key-helpers.ts';

const app = await startInProcessApp(
  t,
  testConfig({ admin: { token: ADMIN }, usage: { budgets: { test: { tokens_per_day: 100000, usd_per_month: 5 } } } }),
);
const a = admin(app.url);
const made = (
  await a.json<Created>('POST', '/admin/keys', {
    id: 'tenant-1',
    workspace: 'team-t',
    models: ['echo'],
    limits: { rpm: 100 },
    budget: {
      limits: [
        { period: 'day', tokens: 50000 },
        { period: 'week', usd: 10 },
      ],
    },
    expires_at: '2099-01-01T00:00:00Z',
  })
).body;

type Me = {
  object: string;
  id: string;
  workspace: string;
  models: string[];
  limits: { rpm: number };
  expires_at: string | null;
  budgets: {
    scope: string;
    period: string;
    limit_usd: number | null;
    limit_tokens: number | null;
    used_tokens: number;
    used_usd: number;
    remaining_tokens: number | null;
    remaining_usd: number | null;
    resets_at: string;
  }[];
  usage_today: { date: string; tokens: number; cost_usd: number } | null;
};

t.test('OpenAI SDK: a runtime key reads its own view, with its spend after a call', async (t) => {
  const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: made.secret, maxRetries: 0 });
  await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'count these tokens' }] });
  const me = await client.get<Me>('/me');
  t.match(me, {
    object: 'api_key',
    id: 'tenant-1',
    workspace: 'team-t',
    models: ['echo'],
    limits: { rpm: 100, tpm: 0, concurrency: 0 },
    expires_at: '2099-01-01T00:00:00.000Z',
  });
  const day = me.budgets.find((b) => b.period === 'day');
  t.ok(day, 'the day budget is listed');
  t.match(day, { scope: 'key', limit_tokens: 50000, limit_usd: null, remaining_usd: null });
  t.ok((day?.used_tokens ?? 0) > 0, 'what the call used is counted');
  t.equal(day?.remaining_tokens, 50000 - (day?.used_tokens ?? 0));
  t.match(day?.resets_at, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
  t.match(
    me.budgets.find((b) => b.period === 'week'),
    { scope: 'key', limit_usd: 10, remaining_usd: Number },
    'the week budget is measured too',
  );
  t.ok((me.usage_today?.tokens ?? 0) > 0, 'spend today');
  const text = JSON.stringify(me);
  t.notOk(text.includes(made.secret), 'no secret');
  t.notOk(/"test"|"other"|ws1|ws2/.test(text), 'nothing about other keys');
});

t.test('Anthropic SDK: a YAML key with x-api-key gets the Anthropic shape and its usage.budgets', async (t) => {
  const client = new Anthropic({ baseURL: app.url, apiKey: TEST_KEY, maxRetries: 0 });
  const me = await client.get<Record<string, unknown>>('/v1/me');
  t.match(me, { type: 'api_key', id: 'test', workspace: 'ws1', models: ['*'], expires_at: null });
  t.notOk('object' in me);
  const budgets = me.budgets as Me['budgets'];
  t.same(
    budgets.map((b) => `${b.scope}:${b.period}:${b.limit_usd}:${b.limit_tokens}`).sort(),
    ['key:day:null:100000', 'key:month:5:null'],
    'the file budgets, in the view',
  );
  const bad = new Anthropic({ baseURL: app.url, apiKey: 'sk-wrong', maxRetries: 0 });
  const err = await bad.get('/v1/me').catch((e: unknown) => e);
  t.ok(err instanceof Anthropic.AuthenticationError, 'a wrong key: 401 the Anthropic SDK reads');
  t.match((err as { error: unknown }).error, { type: 'error', error: { type: 'authentication_error' } });
});

t.test('Gemini credentials get the Gemini shape', async (t) => {
  const r = await fetch(`${app.url}/v1/me`, { headers: { 'x-goog-api-key': OTHER_KEY } });
  t.equal(r.status, 200);
  t.match(await r.json(), { name: 'apiKeys/other', workspace: 'ws2', models: ['echo*'], budgets: [] });
  const viaQuery = await fetch(`${app.url}/v1/me?key=${made.secret}`);
  t.match(await viaQuery.json(), {
    name: 'apiKeys/tenant-1',
    usageToday: { totalTokens: Number },
    budgets: [{ scope: 'key', period: String, resetTime: String }],
  });
  const bad = await fetch(`${app.url}/v1/me`, { headers: { 'x-goog-api-key': 'nope' } });
  t.equal(bad.status, 401);
  t.match(await bad.json(), { error: { code: 401, status: 'UNAUTHENTICATED' } });
});

t.test('a disabled key is told why; an unknown one is not told anything', async (t) => {
  await a.json('POST', '/admin/keys/tenant-1/disable');
  const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: made.secret, maxRetries: 0 });
  const err = await client.get('/me').catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.AuthenticationError);
  t.match((err as Error).message, /disabled/);
  const none = await fetch(`${app.url}/v1/me`);
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { type: 'authentication_error', message: 'invalid or missing API key' } });
  const admin = await fetch(`${app.url}/v1/me`, { headers: { authorization: `Bearer ${ADMIN}` } });
  t.equal(admin.status, 401, 'the admin token is no client key');
});

t.test("a runtime key's budget is enforced, and the view says why", async (t) => {
  const tiny = (
    await a.json<Created>('POST', '/admin/keys', {
      id: 'tiny-budget',
      workspace: 'team-t',
      budget: { limits: [{ period: 'hour', tokens: 5 }] },
    })
  ).body;
  const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: tiny.secret, maxRetries: 0 });
  const call = () =>
    client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'several words to count here' }],
    });
  const outcomes: unknown[] = [];
  for (let i = 0; i < 3; i++)
    outcomes.push(
      await call().then(
        () => 200,
        (e: unknown) => e,
      ),
    );
  const refused = outcomes.find((o) => o instanceof OpenAI.RateLimitError);
  t.ok(refused, 'past its budget the key gets 429');
  t.match((refused as Error).message, /tiny-budget|budget/i);
  const me = await client.get<Me>('/me');
  t.match(me.budgets, [{ scope: 'key', period: 'hour', limit_tokens: 5, remaining_tokens: 0 }], 'nothing left');
});

t.test("GET /admin/budgets lists a runtime key's budget beside the file's", async (t) => {
  const r = await a.json<{ data: { scope: { kind: string; id: string }; period: string; source: string }[] }>(
    'GET',
    '/admin/budgets',
  );
  t.equal(r.status, 200);
  const rows = r.body.data.map((b) => `${b.scope.kind}:${b.scope.id}:${b.period}:${b.source}`);
  t.ok(rows.includes('key:tenant-1:day:runtime'), 'the runtime key, from the key table');
  t.ok(rows.includes('key:test:day:config'), "and the file's");
});
