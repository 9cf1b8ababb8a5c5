// A budget holds under concurrency (issue #23 item 3 for a key's, #25 item 2 for a workspace's and
// a provider's; used by budget-concurrency, budget-workspace-concurrency and
// budget-provider-concurrency). 200 requests at once with the official Anthropic SDK, through one
// gateway (memory, sqlite) and two gateways sharing one real redis-server: a key's daily budget, a
// workspace's weekly one (the key has none) and a provider's 30-day one (its only route: when it is
// over, the request is refused) end within one request's cost per instance of the budget, and every
// request the upstream served is in the ledger.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Test } from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startGateway, testConfig, type Gateway } from '../helpers/start-gateway.ts';
import { startRedis } from '../redis/redis-server.ts';
import { ADMIN_TOKEN, usage } from './usage-helpers.ts';

const KEY = 'sk-budget-scopes-conc-0001';

export type Scope = 'key' | 'workspace' | 'provider';

type Upstream = Awaited<ReturnType<typeof startAnthropicUpstream>>;

function config(up: Upstream, storage: Record<string, unknown>, usd: number, scope: Scope): Record<string, unknown> {
  return testConfig({
    storage,
    keys: [{ id: 'tenant', secret: KEY, workspace: 'ws1' }],
    providers: { anth: { type: 'anthropic', base_url: up.url, api_key: 'sk-up' } },
    models: { 'claude-x': { routes: [{ provider: 'anth', model: 'claude-up' }] } },
    admin: { token: ADMIN_TOKEN },
    usage: {
      prices: { models: { 'claude-x': { input: 3, output: 15 } } },
      ...(usd > 0 && scope === 'key' && { budgets: { tenant: { usd_per_day: usd } } }),
      ...(usd > 0 && scope === 'workspace' && { workspace_budgets: { ws1: { limits: [{ period: 'week', usd }] } } }),
      ...(usd > 0 && scope === 'provider' && { provider_budgets: { anth: { limits: [{ period: '30d', usd }] } } }),
    },
  });
}

/** One request as a tenant would send it: a fixed prompt the emulator echoes, so every request costs the same. */
async function ask(gw: Gateway, stream = false): Promise<'served' | 'refused'> {
  const client = new Anthropic({ baseURL: gw.url, apiKey: KEY });
  const body = {
    model: 'claude-x',
    // Close to the echoed answer's 11 tokens: the reservation is near the real cost.
    max_tokens: 12,
    messages: [{ role: 'user' as const, content: 'tell me about the weather in lisbon today' }],
  };
  try {
    if (stream) for await (const ev of await client.messages.create({ ...body, stream: true })) void ev;
    else await client.messages.create(body);
    return 'served';
  } catch (e) {
    if (e instanceof Anthropic.RateLimitError) return 'refused';
    throw e;
  }
}

/** What one request costs, in nano-dollars, measured on a gateway without a budget. */
async function costOfOne(up: Upstream, scope: Scope): Promise<number> {
  const probe = await startGateway(config(up, { driver: 'memory' }, 0, scope));
  try {
    await ask(probe);
    return (await usage(probe, 'since=1d')).totals.cost_nano;
  } finally {
    await probe.stop();
  }
}

async function drive(t: Test, up: Upstream, gateways: Gateway[], cost: number, budgetNano: number): Promise<void> {
  const before = up.requests.length;
  // Half of them streamed: a stream's reservation is settled by the record written before its last event.
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => ask(gateways[i % gateways.length], i % 4 >= 2)),
  );
  const served = results.filter((r) => r === 'served').length;
  const upstreamCalls = up.requests.length - before;
  const spent = (await usage(gateways[0], 'since=1d&key=tenant')).totals.cost_nano;
  t.ok(served >= 1, `${served} of 200 served`);
  t.equal(results.length - served, 200 - served, 'the others were refused (429)');
  t.equal(upstreamCalls, served, 'no upstream call for a refused request');
  t.equal(spent, served * cost, 'every served request is in the ledger at its cost');
  t.ok(
    spent <= budgetNano + gateways.length * cost,
    `spent ${spent} ≤ budget ${budgetNano} + one request (${cost}) per instance (${gateways.length})`,
  );
  // One at a time after the burst: the budget is used up to its end, and not past one request.
  let more = 0;
  while (more < 20 && (await ask(gateways[more % gateways.length])) === 'served') more++;
  const total = (await usage(gateways[0], 'since=1d&key=tenant')).totals.cost_nano;
  t.equal(total, (served + more) * cost, 'the ledger has every served request');
  t.ok(total >= budgetNano, `the budget is used (${total} ≥ ${budgetNano}): reservations were all settled`);
  t.ok(total <= budgetNano + cost, 'and it ends within one request of it');
}

/** The three stores for one scope's budget: memory and sqlite on one instance, Redis on two. */
export async function runScope(t: Test, scope: Scope, redisDb: number): Promise<void> {
  const up = await startAnthropicUpstream();
  const redis = await startRedis();
  t.teardown(async () => {
    await up.close();
    await redis.stop();
  });
  const cost = await costOfOne(up, scope);
  t.ok(cost > 0, `one request costs ${cost} nano-dollars`);
  // Room for a handful of requests out of 200.
  const budgetNano = Math.round(cost * 7.5);
  const usd = budgetNano / 1e9;

  await t.test(`${scope} budget, one instance, memory store: 200 concurrent requests stay within it`, async (t) => {
    const gw = await startGateway(config(up, { driver: 'memory' }, usd, scope));
    t.teardown(() => gw.stop());
    await drive(t, up, [gw], cost, budgetNano);
  });

  await t.test(`${scope} budget, one instance, sqlite store: 200 concurrent requests stay within it`, async (t) => {
    const path = join(mkdtempSync(join(tmpdir(), 'polygate-budget-scopes-')), 'ledger.db');
    const gw = await startGateway(config(up, { driver: 'sqlite', path }, usd, scope));
    t.teardown(() => gw.stop());
    await drive(t, up, [gw], cost, budgetNano);
  });

  await t.test(`${scope} budget, two instances on one Redis: 200 concurrent requests stay within it`, async (t) => {
    const shared = config(up, { driver: 'redis', url: `${redis.url}/${redisDb}` }, usd, scope);
    const [a, b] = await Promise.all([startGateway(shared), startGateway(shared)]);
    t.teardown(() => Promise.all([a.stop(), b.stop()]));
    await drive(t, up, [a, b], cost, budgetNano);
  });
}
