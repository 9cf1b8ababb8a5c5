// Issue #25, item 2, end to end with the official OpenAI SDK: a workspace budget refuses every key
// of the workspace (and no other); a provider over its budget is skipped for the next route, and a
// model whose every route goes through it is refused naming the provider; GET /admin/budgets lists
// every scope in the contract's shape; a soft limit sends one webhook per window, signed as music
// callbacks are, to a local receiver, once even across two instances sharing a Redis.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { signCallback } from '../../src/infra/outbound/sign-webhook.ts';
import { assertBadParams, badPageQueries } from '../helpers/bad-page-params.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, startGateway, TEST_KEY, testConfig, type RunningGateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startRedis } from '../redis/redis-server.ts';
import { metricValue } from '../resilience/resilience-helpers.ts';
import { ADMIN_TOKEN, usage } from './usage-helpers.ts';

const THIRD_KEY = 'sk-test-key-0003-ws1';
const SECRET = 'whsec-budget-test';

/** A local webhook receiver: every POST kept with its headers and body. */
type Hook = { url: string; got: { headers: IncomingMessage['headers']; body: string }[]; close(): Promise<void> };

async function receiver(): Promise<Hook> {
  const got: Hook['got'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/budget-hook`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function config(hook: Hook, storage: Record<string, unknown> = { driver: 'memory' }): Record<string, unknown> {
  const c = testConfig({
    storage,
    providers: { pa: { type: 'echo' }, pb: { type: 'echo' } },
    models: {
      both: { routes: [{ provider: 'pa' }, { provider: 'pb' }] },
      'only-a': { routes: [{ provider: 'pa' }] },
    },
    admin: { token: ADMIN_TOKEN },
    // The receiver is on loopback, which the SSRF guard refuses otherwise.
    outbound: { allow_private_addresses: true },
    usage: {
      budgets: { other: { usd_per_day: 5 } },
      workspace_budgets: { ws1: { limits: [{ period: 'hour', tokens: 1 }] } },
      provider_budgets: { pa: { limits: [{ period: 'day', tokens: 1 }] } },
      budget_webhook: { url: hook.url, secret: SECRET },
    },
  });
  (c.keys as unknown[]).push({ id: 'third', secret: THIRD_KEY, workspace: 'ws1' });
  return c;
}

/** A webhook receiver and a gateway on the config `build` makes for it, both stopped when `t` ends. */
async function gatewayWithHook(
  t: Test,
  build: (hook: Hook) => Record<string, unknown> = config,
  start: (config: Record<string, unknown>) => Promise<RunningGateway> = startInProcessGateway,
): Promise<{ hook: Hook; gw: RunningGateway }> {
  const hook = await receiver();
  const gw = await start(build(hook));
  t.teardown(async () => {
    await gw.stop();
    await hook.close();
  });
  return { hook, gw };
}

const client = (gw: RunningGateway, apiKey: string): OpenAI => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey });
const ask = (gw: RunningGateway, apiKey: string, model = 'echo', content = 'hello budget') =>
  client(gw, apiKey).chat.completions.create({ model, messages: [{ role: 'user', content }] });

/** Some 100 tokens each way on the echo provider. */
const long = 'lorem ipsum '.repeat(35);

t.test('a workspace budget refuses every key of the workspace, and only those', async (t) => {
  const { gw } = await gatewayWithHook(t);
  await ask(gw, TEST_KEY);
  // The SDK's default retries are on: x-should-retry: false keeps it to one request.
  const refused = await ask(gw, THIRD_KEY, 'echo', 'my teammate used it up').catch((e: unknown) => e);
  t.ok(refused instanceof OpenAI.RateLimitError, 'the SDK raises its RateLimitError');
  const err = refused as InstanceType<typeof OpenAI.RateLimitError>;
  t.equal(err.status, 429);
  t.match(
    err.message,
    /Budget used up for workspace 'ws1'.*tokens_per_hour.*resets at \d{4}-\d\d-\d\dT\d\d:00:00\.000Z/,
  );
  t.equal(err.headers?.get('x-should-retry'), 'false', 'not retryable');
  t.equal(
    await metricValue(gw, 'polygate_budget_rejections_total', {
      scope: 'workspace',
      id: 'ws1',
      budget: 'tokens_per_hour',
    }),
    1,
    'one request reached the gateway: the SDK did not retry',
  );
  const served = await ask(gw, OTHER_KEY);
  t.ok(served.id, 'a key of another workspace is served');
});

t.test('a provider over its budget is skipped for the next route; with none left, 429 naming it', async (t) => {
  const { gw } = await gatewayWithHook(t, (hook) => {
    // No workspace budget here: the provider's is the one that decides.
    const c = config(hook);
    (c.usage as Record<string, unknown>).workspace_budgets = {};
    return c;
  });
  const first = await client(gw, TEST_KEY)
    .chat.completions.create({ model: 'both', messages: [{ role: 'user', content: 'one' }] })
    .withResponse();
  t.match(
    first.response.headers.get('x-polygate-route'),
    /^pa\//,
    'the first route serves while pa is under its budget',
  );
  const second = await client(gw, TEST_KEY)
    .chat.completions.create({ model: 'both', messages: [{ role: 'user', content: 'two' }] })
    .withResponse();
  t.match(second.response.headers.get('x-polygate-route'), /^pb\//, 'pa used up its budget: the fallback route serves');
  const rows = (await usage(gw, 'group_by=provider&since=1d')).rows;
  t.match(
    rows.sort((a, b) => (a.provider < b.provider ? -1 : 1)),
    [
      { provider: 'pa', requests: 1 },
      { provider: 'pb', requests: 1 },
    ],
  );
  const refused = await ask(gw, TEST_KEY, 'only-a').catch((e: unknown) => e);
  t.ok(refused instanceof OpenAI.RateLimitError, 'the only route is over budget: refused');
  t.match((refused as Error).message, /Budget used up for provider 'pa'.*tokens_per_day.*resets at/);
  t.equal((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('x-should-retry'), 'false');
  t.ok(
    (await metricValue(gw, 'polygate_budget_rejections_total', {
      scope: 'provider',
      id: 'pa',
      budget: 'tokens_per_day',
    })) >= 2,
    'each skip counted',
  );
});

type Row = {
  scope: { kind: string; id: string };
  period: string;
  limit_usd: number | null;
  limit_tokens: number | null;
  used_usd: number;
  used_tokens: number;
  ratio: number;
  soft_ratio: number | null;
  resets_at: string;
  source: string;
};

const admin = (gw: RunningGateway, query = ''): Promise<Response> =>
  fetch(`${gw.url}/admin/budgets${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

t.test('GET /admin/budgets: every scope, one row per limit, pages, and bad parameters named', async (t) => {
  const { gw } = await gatewayWithHook(t);
  await ask(gw, TEST_KEY, 'both');
  const res = await admin(gw);
  t.equal(res.status, 200);
  const body = (await res.json()) as { data: Row[]; next_cursor: string | null };
  t.equal(body.next_cursor, null);
  t.match(body.data, [
    {
      scope: { kind: 'key', id: 'other' },
      period: 'day',
      limit_usd: 5,
      limit_tokens: null,
      used_usd: 0,
      soft_ratio: null,
      source: 'config',
    },
    { scope: { kind: 'workspace', id: 'ws1' }, period: 'hour', limit_usd: null, limit_tokens: 1, source: 'config' },
    { scope: { kind: 'provider', id: 'pa' }, period: 'day', limit_tokens: 1, source: 'config' },
  ]);
  t.equal(body.data.length, 3);
  const ws = body.data[1];
  t.ok(ws.used_tokens > 1 && ws.ratio === ws.used_tokens, `the workspace used ${ws.used_tokens} tokens of 1`);
  t.equal(body.data[2].used_tokens, ws.used_tokens, 'the provider that served counts the same request');
  t.equal(new Date(ws.resets_at).getUTCMinutes(), 0, 'an hour resets on the hour');
  t.ok(Date.parse(ws.resets_at) > Date.now());

  const page1 = (await (await admin(gw, '?limit=2')).json()) as { data: Row[]; next_cursor: string };
  t.same(
    page1.data.map((r) => r.scope.id),
    ['other', 'ws1'],
  );
  t.type(page1.next_cursor, 'string');
  const page2 = (await (await admin(gw, `?limit=2&cursor=${page1.next_cursor}`)).json()) as {
    data: Row[];
    next_cursor: null;
  };
  t.same(
    page2.data.map((r) => r.scope.id),
    ['pa'],
  );
  t.equal(page2.next_cursor, null);

  await assertBadParams(t, (query) => admin(gw, query), [['?scope=key', 'scope'], ...badPageQueries]);
  const noToken = await fetch(`${gw.url}/admin/budgets`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(noToken.status, 401, 'a client key is not the admin token');
});

/** The config of the soft-limit tests: a weekly workspace budget of 100,000 tokens with its webhook at 100. */
function softConfig(hook: Hook, storage?: Record<string, unknown>): Record<string, unknown> {
  const c = config(hook, storage);
  const u = c.usage as Record<string, unknown>;
  u.workspace_budgets = { ws1: { limits: [{ period: 'week', tokens: 100_000, soft_ratio: 0.001 }] } };
  u.provider_budgets = {};
  return c;
}

function checkDelivery(t: Test, got: Hook['got'][number]): Record<string, unknown> {
  const ts = String(got.headers['x-polygate-timestamp']);
  t.equal(got.headers['x-polygate-signature'], signCallback(SECRET, ts, got.body), 'signed as music callbacks are');
  t.match(got.headers['x-polygate-delivery'], /^[0-9a-f-]{36}$/);
  t.equal(got.headers['content-type'], 'application/json');
  return JSON.parse(got.body) as Record<string, unknown>;
}

t.test('a soft limit sends one signed webhook per window', async (t) => {
  const { hook, gw } = await gatewayWithHook(t, softConfig);
  // Each request is some 200 tokens: the first crosses 100, and every later one is checked past it.
  for (let i = 0; i < 6; i++) await ask(gw, i % 2 ? TEST_KEY : THIRD_KEY, 'echo', long);
  await waitFor('the webhook', async () => (hook.got.length > 0 ? true : undefined));
  const body = checkDelivery(t, hook.got[0]);
  t.match(body, {
    type: 'budget.soft_limit',
    scope: { kind: 'workspace', id: 'ws1' },
    period: 'week',
    limit_usd: null,
    limit_tokens: 100_000,
    soft_ratio: 0.001,
  });
  t.ok((body.used_tokens as number) >= 100 && (body.ratio as number) >= 0.001, `sent at ${body.used_tokens} tokens`);
  t.equal(new Date(body.resets_at as string).getUTCDay(), 1, 'a week resets on a Monday');
  // More requests past the soft limit, then a flush of the ledger: still the one delivery.
  for (let i = 0; i < 5; i++) await ask(gw, TEST_KEY, 'echo', long);
  await usage(gw, 'since=1d');
  t.equal(hook.got.length, 1, 'once per window');
});

t.test('two instances on one Redis: the soft-limit webhook is sent once between them', async (t) => {
  const redis = await startRedis();
  const hook = await receiver();
  const shared = softConfig(hook, { driver: 'redis', url: `${redis.url}/7` });
  const [a, b] = await Promise.all([startGateway(shared), startGateway(shared)]);
  t.teardown(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await hook.close();
    await redis.stop();
  });
  // Both instances see the workspace past 10 % (Redis holds the totals) and both try to send.
  for (let i = 0; i < 5; i++) await Promise.all([ask(a, TEST_KEY, 'echo', long), ask(b, THIRD_KEY, 'echo', long)]);
  await waitFor('the webhook', async () => (hook.got.length > 0 ? true : undefined));
  checkDelivery(t, hook.got[0]);
  for (let i = 0; i < 5; i++) await Promise.all([ask(a, TEST_KEY, 'echo', long), ask(b, THIRD_KEY, 'echo', long)]);
  await Promise.all([usage(a, 'since=1d'), usage(b, 'since=1d')]);
  t.equal(hook.got.length, 1, 'one delivery for both instances');
});

t.test('the webhook goes through the SSRF guard: a loopback receiver is refused unless allowed', async (t) => {
  // Spawned: served in-process after the other tests, its refusal was never counted (not yet
  // understood; the outbound agents are the process's own, src/infra/outbound/ssrf-guard.ts).
  const { hook, gw } = await gatewayWithHook(
    t,
    (hook) => {
      const c = softConfig(hook);
      c.outbound = { allow_private_addresses: false };
      return c;
    },
    startGateway,
  );
  for (let i = 0; i < 3; i++) await ask(gw, TEST_KEY, 'echo', long);
  await waitFor('the refusal', async () =>
    (await metricValue(gw, 'polygate_budget_webhooks_total', { outcome: 'refused' })) === 1 ? true : undefined,
  );
  t.equal(hook.got.length, 0, 'nothing reached the loopback receiver');
  await gw.matchLog(t, /budget webhook refused/);
});
