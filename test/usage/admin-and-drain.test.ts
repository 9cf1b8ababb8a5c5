// The admin API answers only its own token (never a client key), and the ledger loses nothing on
// SIGTERM: records of streams still in flight when the signal comes are in the store after exit.
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { OTHER_KEY, startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, tokenNano, usage } from './usage-helpers.ts';

const fault = await startFaultUpstream();
t.teardown(() => fault.close());
const db = join(mkdtempSync(join(tmpdir(), 'polygate-ledger-drain-')), 'polygate.db');
const price = { input: 4, output: 12 };
const config = testConfig({
  storage: { driver: 'sqlite', path: db },
  providers: { up: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' } },
  models: { streamer: { routes: [{ provider: 'up', model: 'up-stream' }] } },
  admin: { token: ADMIN_TOKEN },
  // Nothing is written by the timer during the test: only the shutdown flush can save the records.
  usage: { flush_interval_ms: 60_000, prices: { models: { streamer: price } } },
});

t.test('the admin API refuses client keys and missing or wrong tokens', async (t) => {
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  for (const [what, auth] of [
    ['a client key', `Bearer ${TEST_KEY}`],
    ['another client key', `Bearer ${OTHER_KEY}`],
    ['a wrong token', 'Bearer admin-token-for-tests-0002'],
    ['no credential', undefined],
  ] as const) {
    const res = await fetch(`${gw.url}/admin/usage`, { headers: auth ? { authorization: auth } : {} });
    t.equal(res.status, 401, what);
    const body = (await res.json()) as { error: { message: string } };
    t.match(body.error.message, /admin\.token/);
    t.notMatch(body.error.message, ADMIN_TOKEN);
  }
  const client = await fetch(`${gw.url}/admin/budgets`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(client.status, 401, 'budgets too');
  const bad = await fetch(`${gw.url}/admin/usage?group_by=colour`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { param: 'group_by' } });
  const ok = await fetch(`${gw.url}/admin/usage`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.equal(ok.status, 200);
});

t.test('with no admin.token the admin API does not exist', async (t) => {
  const gw = await startGateway({ ...config, admin: {}, storage: { driver: 'memory' } });
  t.teardown(() => gw.stop());
  const res = await fetch(`${gw.url}/admin/usage`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(res.status, 404);
});

t.test('SIGTERM with streams in flight: every record is in the database after exit', async (t) => {
  const gw = await startGateway(config);
  const text = 'one two three four five six';
  const n = 3;
  fault.reset();
  fault.script(...Array.from({ length: n }, () => ({ kind: 'ok' as const, text, pauseAfterChunks: 2 })));
  const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  const streams = Array.from({ length: n }, () =>
    client.messages
      .stream({ model: 'streamer', max_tokens: 32, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage(),
  );
  await fault.waitForRequests(n);
  const exit = new Promise<number | null>((resolve) => gw.process.once('exit', resolve));
  gw.process.kill('SIGTERM');
  // Let the drain begin before the streams go on.
  await new Promise((r) => setTimeout(r, 100));
  fault.resume();
  for (const m of await Promise.all(streams))
    t.match(m, { stop_reason: 'end_turn', content: [{ type: 'text', text }] }, 'the stream ran to its end');
  t.equal(await exit, 0);

  const again = await startGateway(config);
  t.teardown(() => again.stop());
  const r = await usage(again, 'group_by=model&since=1d');
  const row = r.rows.find((x) => x.model === 'streamer');
  const out = n * Math.ceil(text.length / 4);
  t.match(
    row,
    { requests: n, input_tokens: n * 5, output_tokens: out, unpriced: 0 },
    'all records written on the way out',
  );
  t.equal(row?.cost_nano, tokenNano(n * 5, price.input) + tokenNano(out, price.output));
});
