// Prices and ledger totals on the Redis driver (test/usage/ledger-totals.ts), and a key's budget
// enforced at its boundary across two instances sharing one real redis-server.
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startOpenAIAudioUpstream } from '../emulators/openai-audio-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startGateway, type Gateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startRedis } from '../redis/redis-server.ts';
import { metricValue } from '../resilience/resilience-helpers.ts';
import { checkTotals } from './ledger-totals.ts';
import { ADMIN_TOKEN, pricedConfig, usage } from './usage-helpers.ts';

const redis = await startRedis();
const [chat, anth, audio] = await Promise.all([
  startOpenAIChatUpstream(),
  startAnthropicUpstream(),
  startOpenAIAudioUpstream(),
]);
const up = { chatUrl: chat.url, anthropicUrl: anth.url, audioUrl: audio.url, audioKey: audio.key };
t.teardown(async () => {
  await Promise.all([chat.close(), anth.close(), audio.close()]);
  await redis.stop();
});

t.test('every family priced and totalled exactly (redis)', async (t) => {
  const gw = await startGateway(pricedConfig(up, { storage: { driver: 'redis', url: `${redis.url}/1` } }));
  t.teardown(() => gw.stop());
  await checkTotals(t, gw);
});

const BUDGETED = 'sk-budgeted-key-0001';
t.test('a USD budget stops a key at the boundary, whichever instance it reaches', async (t) => {
  // Every chat-a request costs the same: the emulator answers 'hi' to 'hi' with fixed usage.
  const config = pricedConfig(up, {
    storage: { driver: 'redis', url: `${redis.url}/2` },
    keys: [{ id: 'budgeted', secret: BUDGETED, workspace: 'ws1' }],
  });
  const probe = await startGateway({
    ...config,
    keys: [{ id: 'budgeted', secret: BUDGETED, workspace: 'ws1' }],
    storage: { driver: 'memory' },
  });
  const one = await send(probe);
  t.equal(one.status, 200);
  await waitFor('the probe request in the ledger', async () =>
    (await usage(probe, 'since=1d')).totals.requests === 1 ? true : undefined,
  );
  const cost = (await usage(probe, 'since=1d')).totals.cost_nano;
  await probe.stop();
  t.ok(cost > 0, `one request costs ${cost} nano-dollars`);

  // Room for exactly three requests: the fourth starts with the budget used up.
  const budget = (3 * cost) / 1e9;
  const shared = { ...config, usage: { ...(config.usage as object), budgets: { budgeted: { usd_per_day: budget } } } };
  const [a, b] = await Promise.all([startGateway(shared), startGateway(shared)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const upstreamCalls = chat.requests.length;
  let spent = 0;
  for (const gw of [a, b, a]) {
    t.equal((await send(gw)).status, 200, 'under the budget');
    spent += cost;
    // Each instance learns the other's spend from Redis once the record is flushed.
    for (const other of [a, b])
      await waitFor('the spend in Redis', async () =>
        (await usage(other, 'since=1d&key=budgeted')).totals.cost_nano === spent ? true : undefined,
      );
  }
  const refusedB = await send(b);
  t.equal(refusedB.status, 429, 'B refuses: A and B together spent the budget');
  const body = (await refusedB.json()) as { error: { type: string; message: string } };
  t.match(body.error.message, /usd_per_day/);
  t.match(body.error.message, /budgeted/);
  // Not retryable before the day ends (issue #23): no Retry-After an SDK would sleep on for hours.
  t.equal(refusedB.headers.get('x-should-retry'), 'false');
  t.equal(refusedB.headers.get('retry-after'), null);
  t.match(body.error.message, /resets at \d{4}-\d\d-\d\dT00:00:00/);
  t.equal((await send(a)).status, 429, 'and so does A');
  t.equal(chat.requests.length, upstreamCalls + 3, 'no upstream call for the refused requests');
  t.equal(
    await metricValue(b, 'polygate_budget_rejections_total', { scope: 'key', id: 'budgeted', budget: 'usd_per_day' }),
    1,
  );
  t.equal(
    await metricValue(b, 'polygate_budget_used_ratio', { scope: 'key', id: 'budgeted', budget: 'usd_per_day' }),
    1,
  );
  const budgets = (await (
    await fetch(`${a.url}/admin/budgets`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).json()) as { data: unknown[] };
  t.match(budgets.data, [
    { scope: { kind: 'key', id: 'budgeted' }, period: 'day', used_usd: budget, limit_usd: budget, ratio: 1 },
  ]);
});

function send(gw: Gateway): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BUDGETED}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'chat-a', messages: [{ role: 'user', content: 'hi' }] }),
  });
}
