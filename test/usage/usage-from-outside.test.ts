// Issue #30 item 7 and issue #23 item 8: usage an upstream reports is data from outside. 1e15
// tokens made every /admin/usage answer 500 (sqlite RangeError) until the row aged out; now such a
// report is replaced by an estimate (marked, and logged), and rows already stored do not break the
// read API. Also: /admin/usage refuses parameters it does not know and bad values, naming them,
// and `npm run usage -- --help` prints its usage.
import Anthropic from '@anthropic-ai/sdk';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { repoRoot, startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, usage } from './usage-helpers.ts';

const chat = await startOpenAIChatUpstream();
t.teardown(() => chat.close());
const db = join(mkdtempSync(join(tmpdir(), 'polygate-usage-outside-')), 'polygate.db');
const config = testConfig({
  storage: { driver: 'sqlite', path: db },
  providers: { oai: { type: 'openai', base_url: chat.url, api_key: 'sk-up-chat', api: 'chat_completions' } },
  models: {
    'chat-a': { routes: [{ provider: 'oai', model: 'gpt-up' }] },
  },
  admin: { token: ADMIN_TOKEN },
  usage: { flush_interval_ms: 50, prices: { models: { 'chat-a': { input: 3, output: 15 } } } },
});
const huge = { prompt_tokens: 1e15, completion_tokens: 1e15, total_tokens: 2e15 };

t.test('an upstream reporting 1e15 tokens is billed an estimate, and /admin/usage keeps answering', async (t) => {
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  chat.reset();
  chat.script(
    { kind: 'text', text: 'relayed whole', usage: huge },
    { kind: 'text', text: 'relayed stream', usage: huge },
    { kind: 'text', text: 'translated stream', usage: { ...huge, prompt_tokens: -3 } },
  );
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const whole = await openai.chat.completions.create({
    model: 'chat-a',
    messages: [{ role: 'user', content: 'hello there' }],
  });
  t.equal(whole.choices[0].message.content, 'relayed whole', 'the client still gets its answer');
  for await (const _ of await openai.chat.completions.create({
    model: 'chat-a',
    stream: true,
    messages: [{ role: 'user', content: 'hello there' }],
  }));
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  const m = await anthropic.messages
    .stream({ model: 'chat-a', max_tokens: 64, messages: [{ role: 'user', content: 'hello there' }] })
    .finalMessage();
  t.match(m.content, [{ type: 'text', text: 'translated stream' }]);

  const res = await fetch(`${gw.url}/admin/usage?group_by=model&since=1d`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  t.equal(res.status, 200, 'the read API answers');
  const row = ((await res.json()) as Awaited<ReturnType<typeof usage>>).rows[0];
  t.match(row, { model: 'chat-a', requests: 3, estimated: 3 });
  t.ok(row.input_tokens > 0 && row.input_tokens < 1000, `estimated prompts (${row.input_tokens})`);
  t.ok(row.output_tokens > 0 && row.output_tokens < 1000, `estimated answers (${row.output_tokens})`);
  t.ok(Number.isSafeInteger(row.cost_nano) && row.cost_nano > 0, 'a cost that sums exactly');
  // The CLI's table shows the estimated requests too.
  const cli = spawnSync(
    process.execPath,
    [join(repoRoot, 'src/app/usage-cli.ts'), '--url', gw.url, '--token', ADMIN_TOKEN, '--since', '1d'],
    { encoding: 'utf8', cwd: repoRoot },
  );
  t.equal(cli.status, 0, cli.stderr);
  t.match(cli.stdout, /requests\s+input_tokens\s+output_tokens.*estimated\s+partial\s+cost_usd/);
  t.match(cli.stdout, /\btest\s+chat-a\s+oai\s+3\s+\d+\s+\d+.*\s3\s+0\s+\$/);
  await gw.matchLog(t, /upstream usage ignored: inputTokens 1000000000000000 is over/, 'the report is logged');
  // The Chat decoder drops the negative count itself; the other is still refused.
  await gw.matchLog(t, /upstream usage ignored: outputTokens 1000000000000000 is over/);
});

t.test('rows stored before the check do not break /admin/usage', async (t) => {
  // A file of its own, whose ledger tables a gateway creates; counts past 2^53 are then stored
  // in them as an unchecked upstream's usage was (sums node:sqlite cannot read as numbers).
  const old = join(mkdtempSync(join(tmpdir(), 'polygate-usage-old-rows-')), 'polygate.db');
  const oldConfig = {
    ...config,
    storage: { driver: 'sqlite', path: old },
    usage: { ...(config.usage as object), budgets: { test: { usd_per_day: 5 } } },
  };
  const first = await startGateway(oldConfig);
  t.equal((await usage(first, 'since=1d')).rows.length, 0, 'the ledger opened its tables');
  await first.stop();
  const file = new DatabaseSync(old);
  const day = new Date().toISOString().slice(0, 10);
  file
    .prepare(
      `INSERT INTO usage_records (ts, day, request_id, key, workspace, family, model, provider, upstream_model,
       format_in, format_out, mode, input_tokens, output_tokens, reasoning_tokens, cache_read_tokens,
       cache_write_tokens, characters, audio_ms, tasks, cost_nano, priced, outcome, status)
       VALUES (?, ?, 'old', 'test', 'ws1', 'chat', 'chat-a', 'oai', 'gpt-up', 'openai-chat', 'openai-chat',
       'passthrough', ?, ?, 0, 0, 0, 0, 0, 0, ?, 1, 'ok', 200)`,
    )
    .run(Date.now(), day, 1e16, 1e15, 3e18);
  file
    .prepare('INSERT INTO usage_totals (key, period, cost_nano, tokens) VALUES (?, ?, ?, ?)')
    .run('test', `d:${day}`, 3e18, 1.1e16);
  file.close();
  const gw = await startGateway(oldConfig);
  t.teardown(() => gw.stop());
  const r = await usage(gw, 'group_by=model&since=1d');
  t.match(
    r.rows[0],
    { model: 'chat-a', requests: 1, input_tokens: 1e16, cost_nano: 3e18 },
    'answered, the old row included',
  );
  const budgets = await fetch(`${gw.url}/admin/budgets`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.equal(budgets.status, 200, '/admin/budgets answers too');
  t.match(await budgets.json(), { data: [{ scope: { kind: 'key', id: 'test' }, period: 'day', used_usd: 3e9 }] });
  const refused = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 }).chat.completions
    .create({ model: 'chat-a', messages: [{ role: 'user', content: 'over budget' }] })
    .catch((e: unknown) => e as { status?: number });
  t.match(refused, { status: 429 }, 'and the key is over its budget, not unchecked');
});

t.test('/admin/usage refuses unknown parameters and bad values, naming them', async (t) => {
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  for (const [query, param] of [
    ['workspace=ws1', 'workspace'],
    ['limit=10', 'limit'],
    ['format=xml', 'format'],
    ['since=yesterday', 'since'],
    ['group_by=key,colour', 'group_by'],
    ['key=test&Model=chat-a', 'Model'],
  ] as const) {
    const res = await fetch(`${gw.url}/admin/usage?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    t.equal(res.status, 400, query);
    const body = (await res.json()) as { error: { param: string; message: string } };
    t.equal(body.error.param, param, `${query}: names ${param}`);
    t.match(body.error.message, param);
  }
  for (const query of ['format=csv', 'format=json', 'key=test&model=chat-a&provider=oai&until=today&since=7d']) {
    const res = await fetch(`${gw.url}/admin/usage?${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    t.equal(res.status, 200, query);
    await res.arrayBuffer();
  }
});

t.test('npm run usage -- --help prints its usage and exits 0; a bad option says so without a stack', async (t) => {
  const cli = join(repoRoot, 'src/app/usage-cli.ts');
  const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8', cwd: repoRoot });
  t.equal(help.status, 0);
  t.match(help.stdout, /^Usage: npm run usage -- \[options\]/);
  t.match(help.stdout, /--since 7d\|DATE/);
  t.equal(help.stderr, '');
  const bad = spawnSync(process.execPath, [cli, '--colour'], { encoding: 'utf8', cwd: repoRoot });
  t.equal(bad.status, 2);
  t.match(bad.stderr, /Unknown option '--colour'/);
  t.notMatch(bad.stderr, /at .*parse_args/, 'no stack trace');
});
