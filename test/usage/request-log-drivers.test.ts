// The request log end to end on the stores that outlive a process (#25): spawned gateways on
// sqlite and on a real redis-server, requests made with the OpenAI and Anthropic SDKs, read back
// page by page (no duplicate, no gap) with filters; on Redis two instances share one log: a
// request served by A, with its captured content, is read and its content deleted through B.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { OTHER_KEY, startGateway, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startRedis } from '../redis/redis-server.ts';
import { admin, allPages, logConfig, one, page } from './request-log-helpers.ts';

const [chat, anth, redis] = await Promise.all([startOpenAIChatUpstream(), startAnthropicUpstream(), startRedis()]);
t.teardown(async () => {
  await Promise.all([chat.close(), anth.close()]);
  await redis.stop();
});

/** Requests of both SDKs, both keys, streamed or not: `n` of them, ids `<tag>-<i>`. */
async function traffic(gws: Gateway[], tag: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const gw = gws[i % gws.length];
    const key = i % 3 ? TEST_KEY : OTHER_KEY;
    const headers = { 'x-request-id': `${tag}-${i}` };
    if (i % 2) {
      const c = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
      await c.chat.completions.create({ model: 'chat-a', messages: [{ role: 'user', content: `q${i}` }] }, { headers });
    } else {
      const c = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
      await c.messages
        .stream({ model: 'claude-b', max_tokens: 20, messages: [{ role: 'user', content: `q${i}` }] }, { headers })
        .finalMessage();
    }
  }
}

async function checkPages(t: Test, gw: Gateway, tag: string, n: number): Promise<void> {
  await waitFor('the last request in the log', async () =>
    (await page(gw.url, 'limit=5')).data.some((r) => r.request_id === `${tag}-${n - 1}`) ? true : undefined,
  );
  const { rows } = await allPages(gw.url, 'since=1h', 4);
  const mine = rows.map((r) => r.request_id).filter((id) => id.startsWith(`${tag}-`));
  t.same(
    mine,
    Array.from({ length: n }, (_, i) => `${tag}-${n - 1 - i}`),
    'every request once, newest first',
  );
  const byOther = await allPages(gw.url, 'key=other&model=claude-b', 2);
  const want = Array.from({ length: n }, (_, i) => i)
    .filter((i) => i % 3 === 0 && i % 2 === 0)
    .reverse()
    .map((i) => `${tag}-${i}`);
  t.same(
    byOther.rows.map((r) => r.request_id).filter((id) => id.startsWith(`${tag}-`)),
    want,
    'filtered by key and model',
  );
  const stream = rows.find((r) => r.request_id === `${tag}-0`)!;
  t.match(stream, { route: '/v1/messages', provider: 'anth', format_in: 'anthropic-messages', status: 200 });
  t.ok(typeof stream.ttfb_ms === 'number' && typeof stream.latency_ms === 'number', 'timings kept');
}

t.test('sqlite', async (t) => {
  const gw = await startGateway(
    logConfig(chat, anth, {
      storage: { driver: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'request-log-')), 'gw.db') },
    }),
  );
  t.teardown(() => gw.stop());
  await traffic([gw], 'sq', 13);
  await checkPages(t, gw, 'sq', 13);
  const captured = await waitFor('content', async () => (await one(gw.url, 'sq-1')).content ?? undefined);
  t.match(captured.request, /q1/);
  t.equal((await one(gw.url, 'sq-0')).content, null, 'ws2 (key other) captures nothing');
});

t.test('redis, two instances', async (t) => {
  const config = logConfig(chat, anth, { storage: { driver: 'redis', url: `${redis.url}/3` } });
  const [a, b] = await Promise.all([startGateway(config), startGateway(config)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  await traffic([a, b], 'rd', 14);
  await checkPages(t, a, 'rd', 14);
  await checkPages(t, b, 'rd', 14);
  // rd-1 was served by B (odd), with workspace ws1: its content read through A.
  const c = await waitFor('content', async () => (await one(a.url, 'rd-1')).content ?? undefined);
  t.match(c.request, /q1/);
  t.match(JSON.parse(c.response!), { object: 'chat.completion' });
  t.equal((await admin(a.url, '/admin/requests/rd-1/content', { method: 'DELETE' })).status, 204);
  t.equal((await one(b.url, 'rd-1')).content, null, 'deleted for every instance');
});
