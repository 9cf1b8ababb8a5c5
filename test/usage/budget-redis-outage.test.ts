// Issue #23, item 5: Redis goes away and comes back. Two gateways share one real redis-server
// (with its data on disk, so a restart keeps the totals): one with the default
// `usage.on_store_error: closed`, one with `open`. While Redis is down the closed one refuses a
// budgeted key's requests after the bounded wait (503, no upstream call), the open one serves
// them and keeps their records; once Redis is back those records are written, and the key,
// now over its budget, is refused by both.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import OpenAI from 'openai';
import { Redis } from 'ioredis';
import t from 'tap';
import { startGateway, testConfig, type Gateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { ADMIN_TOKEN, usage } from './usage-helpers.ts';
import { freePort } from '../helpers/free-port.ts';
import { rejection } from '../helpers/caught.ts';

const KEY = 'sk-budget-outage-0001';

/** A redis-server that keeps its data in `dir` (append-only file), so it can be stopped and started again. */
async function redisOn(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always'],
    { stdio: 'ignore' },
  );
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  await waitFor('redis-server answering', async () => {
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG' ? true : undefined;
    } catch {
      probe.disconnect();
      return undefined;
    }
  });
  probe.disconnect();
  return child;
}

const stopped = (c: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  });

const port = await freePort();
const dir = mkdtempSync(`${tmpdir()}/polygate-redis-`);
let redis = await redisOn(port, dir);
t.teardown(() => stopped(redis));

const config = (onStoreError: 'closed' | 'open', tokensPerDay: number): Record<string, unknown> =>
  testConfig({
    storage: { driver: 'redis', url: `redis://127.0.0.1:${port}/0` },
    keys: [{ id: 'tenant', secret: KEY, workspace: 'ws1' }],
    admin: { token: ADMIN_TOKEN },
    usage: {
      on_store_error: onStoreError,
      budgets: tokensPerDay > 0 ? { tenant: { tokens_per_day: tokensPerDay } } : {},
    },
  });

async function chat(gw: Gateway): Promise<number> {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 });
  try {
    await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'one more please' }] });
    return 200;
  } catch (e) {
    if (e instanceof OpenAI.APIError && e.status !== undefined) return e.status;
    throw e;
  }
}

/** Budget tokens (input + output) of one request: what the echo model reports for it. */
async function tokensOfOne(): Promise<number> {
  const probe = await startGateway({ ...config('closed', 0), storage: { driver: 'memory' } });
  try {
    await chat(probe);
    const r = (await usage(probe, 'since=1d')).totals;
    return Number(r.input_tokens) + Number(r.output_tokens);
  } finally {
    await probe.stop();
  }
}

t.test('a Redis outage: bounded, closed or open by config, and the spend kept across it', async (t) => {
  const per = await tokensOfOne();
  // Room for three requests.
  const budget = 3 * per;
  const [closed, open] = await Promise.all([
    startGateway(config('closed', budget)),
    startGateway(config('open', budget)),
  ]);
  t.teardown(() => Promise.all([closed.stop(), open.stop()]));
  t.equal(await chat(closed), 200, 'under the budget before the outage');

  // A Redis that hangs (stopped, not gone): no reply ever comes, and only the bounded wait answers.
  redis.kill('SIGSTOP');
  const hung = new OpenAI({ baseURL: `${closed.url}/v1`, apiKey: KEY, maxRetries: 0 });
  const err = await rejection(
    hung.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'one more please' }] }),
  );
  t.match(err, { status: 503 }, 'closed: refused while Redis does not answer');
  t.match((err as Error).message, /did not answer in time/, 'by the bounded wait (usage.store_wait_ms)');
  t.equal(await chat(open), 200, 'open: served while Redis does not answer');
  redis.kill('SIGCONT');

  await stopped(redis);
  const refused = await chat(closed);
  t.equal(refused, 503, 'closed: a budgeted request is refused while its spend cannot be known');
  await closed.matchLog(t, /budgeted keys are refused/);
  // Served on the open instance while Redis is down: with the two before, the key is past its budget.
  for (let i = 0; i < 2; i++) t.equal(await chat(open), 200, 'open: served while Redis is down');

  redis = await redisOn(port, dir);
  await waitFor(
    'the records kept during the outage written to Redis',
    async () => {
      const r = await usage(closed, 'since=1d&key=tenant').catch(() => undefined);
      return r?.totals.requests === 4 ? true : undefined;
    },
    15_000,
  );
  t.equal(await chat(closed), 429, 'after the outage the key is over its budget on the closed instance');
  t.equal(await chat(open), 429, 'and on the open one');
});
