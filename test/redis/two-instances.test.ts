// Two polygate processes on one real Redis: a key's rpm is one budget across both, a response
// stored through one is continued through the other, and a task submitted to one is polled by
// exactly one of them (the store's claim lease) and can be fetched from the other.
import t from 'tap';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import { startGateway, TEST_KEY } from '../helpers/start-gateway.ts';
import { call, submit, untilFinished, waitFor } from '../tune/tune-helpers.ts';
import { startHookReceiver } from '../tune/hook-receiver.ts';
import { sharedConfig } from './redis-helpers.ts';
import { startRedis } from './redis-server.ts';

const redis = await startRedis();
const up = await startTuneUpstream();
const receiver = await startHookReceiver();
const LIMITED = 'sk-shared-rpm-0001';
const config = sharedConfig(redis.url, up, {
  keys: [
    { id: 'test', secret: TEST_KEY, workspace: 'ws1' },
    { id: 'limited', secret: LIMITED, workspace: 'ws1', limits: { rpm: 4 } },
  ],
});
const [a, b] = await Promise.all([startGateway(config), startGateway(config)]);
t.teardown(async () => {
  await Promise.all([a.stop(), b.stop()]);
  await Promise.all([up.close(), receiver.close()]);
  await redis.stop();
});

const chat = (gw: typeof a, key: string): Promise<Response> =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }),
  });

t.test("a key's rpm is shared across both instances", async (t) => {
  const statuses: number[] = [];
  for (const gw of [a, b, a, b]) statuses.push((await chat(gw, LIMITED)).status);
  t.same(statuses, [200, 200, 200, 200], 'four requests, two on each');
  const overA = await chat(a, LIMITED);
  const overB = await chat(b, LIMITED);
  t.equal(overA.status, 429);
  t.equal(overB.status, 429, 'the fifth and sixth are refused whichever instance they reach');
  t.ok(Number(overB.headers.get('retry-after')) >= 1);
  t.equal((await chat(b, TEST_KEY)).status, 200, 'another key is not affected');
});

t.test('a response stored through one instance is continued and read through the other', async (t) => {
  const post = (gw: typeof a, body: unknown) =>
    fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const first = (await (await post(a, { model: 'echo', input: 'remember the blue door' })).json()) as { id: string };
  t.match(first.id, /^resp_/);
  const read = await fetch(`${b.url}/v1/responses/${first.id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(read.status, 200, 'B reads what A stored');
  t.equal(((await read.json()) as { id: string }).id, first.id);
  const next = await post(b, { model: 'echo', input: 'and the red one', previous_response_id: first.id });
  t.equal(next.status, 200, 'B continues the conversation A stored');
  const second = (await next.json()) as { id: string; previous_response_id: string };
  t.equal(second.previous_response_id, first.id);
  const back = await fetch(`${a.url}/v1/responses/${second.id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(back.status, 200, 'and A reads what B stored');
});

t.test('a task submitted to one instance is polled exactly once and fetched from the other', async (t) => {
  // Each task is finished by its first poll: an instance polling a task another one holds would
  // show as a second fetch of it.
  const n = 6;
  up.script(...Array.from({ length: n }, () => ({ statuses: ['SUCCESS'] })));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(
      await submit(i % 2 === 0 ? a : b, '/tune/submit/music', {
        prompt: `song ${i}`,
        title: `T${i}`,
        tags: 'pop',
        notify_hook: `${receiver.url}/hook/${i}`,
      }),
    );
  }
  for (const [i, id] of ids.entries()) {
    const done = await untilFinished(i % 2 === 0 ? b : a, id);
    t.equal(done.status, 'SUCCESS', `task ${i} fetched from the instance it was not submitted to`);
  }
  const upstreamIds = up
    .submissions()
    .slice(-n)
    .map((s) => s.id);
  t.same(
    upstreamIds.map((id) => up.fetched(id)),
    Array(n).fill(1),
    'each task was polled once, by one instance',
  );
  await waitFor('every callback', async () => (receiver.received.length >= n ? true : undefined));
  t.equal(receiver.received.length, n, 'one callback per task');
  const r = await call(b, 'POST', '/tune/fetch', { ids });
  t.equal((r.body.data as unknown[]).length, n, 'the batch query on either instance sees them all');
});
