// Searches and fetches polygate runs (#27) are counted in the usage ledger, `web_search_requests`
// and `web_fetch_requests`, on every ledger store (memory, sqlite, Redis), and summed by
// /admin/usage; each is priced into the request's cost. End to end with the official Anthropic SDK
// against a spawned polygate. The sqlite file is one an older polygate wrote (no such columns, one
// record already): the columns are added and its record counts no search.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startSearchWeb } from '../emulators/search-web.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { TEST_KEY, testConfig } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startRedis } from '../redis/redis-server.ts';
import { usageRecordsColumnsBeforeSearches } from '../usage/old-ledger-tables.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';

const [web, chat, redis] = await Promise.all([startSearchWeb(), startOpenAIChatUpstream(), startRedis()]);
t.teardown(async () => {
  await Promise.all([web.close(), chat.close()]);
  await redis.stop();
});

/** A usage_records table as polygate wrote it before searches were counted, holding one record. */
function oldSqliteFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'polygate-old-ledger-')), 'polygate.db');
  const db = new DatabaseSync(path);
  db.exec(`CREATE TABLE usage_records (${usageRecordsColumnsBeforeSearches})`);
  const now = Date.now();
  db.prepare(
    `INSERT INTO usage_records VALUES (?, ?, 'old-1', 'test', 'ws1', 'chat', 'claude-hosted', 'oai', 'gpt-up',
     'anthropic', 'openai-chat', 'translate', 5, 5, 0, 0, 0, 0, 0, 0, 0, 0, 'ok', 200, 'reported')`,
  ).run(now, new Date(now).toISOString().slice(0, 10));
  db.close();
  return path;
}

const stores: Array<[string, () => Record<string, unknown>, number]> = [
  ['memory', () => ({ driver: 'memory' }), 0],
  ['sqlite, a file of an older polygate', () => ({ driver: 'sqlite', path: oldSqliteFile() }), 1],
  ['redis', () => ({ driver: 'redis', url: `${redis.url}/3` }), 0],
];

for (const [name, storage, before] of stores)
  t.test(`one search and one fetch counted and priced (${name})`, async (t) => {
    const gw = await startInProcessGateway(
      testConfig({
        providers: { oai: { type: 'openai', base_url: chat.url, api_key: 'sk-up', api: 'chat_completions' } },
        models: { 'claude-hosted': { routes: [{ provider: 'oai', model: 'gpt-up', hosted_tools: 'run' }] } },
        storage: storage(),
        admin: { token: ADMIN_TOKEN },
        usage: { flush_interval_ms: 50 },
        outbound: { allow_private_addresses: true },
        search_backends: { local: { kind: 'searxng', url: `${web.url}/search` } },
        hosted_tools: { search_backend: 'local', price_per_search_usd: 0.01, price_per_fetch_usd: 0.002 },
      }),
    );
    t.teardown(() => gw.stop());
    chat.reset();
    chat.script(
      { kind: 'tool', name: 'web_search', args: '{"query":"polygate"}', id: 's1' },
      { kind: 'tool', name: 'web_fetch', args: JSON.stringify({ url: `${web.url}/page/a` }), id: 'f1' },
      { kind: 'text', text: 'The answer is 42.' },
    );
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    const msg = await client.messages.create({
      model: 'claude-hosted',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'What is the answer?' }],
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { type: 'web_fetch_20250910', name: 'web_fetch' } as never,
      ],
    });
    t.match(msg.usage, { server_tool_use: { web_search_requests: 1, web_fetch_requests: 1 } });
    const report = await waitFor('the request in the ledger', async () => {
      const r = await usage(gw, 'group_by=model&since=1d');
      return r.totals.requests >= before + 1 ? r : undefined;
    });
    t.equal(report.totals.requests, before + 1);
    t.equal(report.totals.web_search_requests, 1, 'one search');
    t.equal(report.totals.web_fetch_requests, 1, 'one fetch');
    t.equal(report.totals.cost_nano, 12_000_000, '$0.01 for the search, $0.002 for the fetch (the model is unpriced)');
    const csv = await fetch(`${gw.url}/admin/usage?group_by=model&since=1d&format=csv`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).then((r) => r.text());
    t.match(csv.split('\n')[0], /web_search_requests,web_fetch_requests/, 'the CSV has the columns');
  });
