// Issue #23, item 6: an answer the client has in full is in the ledger, even when the gateway is
// killed (-9) right after. Clients (the official Anthropic SDK) send streamed and whole requests,
// relayed (Anthropic upstream) and translated (OpenAI Chat upstream), each with its own
// x-request-id; the process is killed under load; every request whose answer the client got in
// full (the whole body, or the stream's message_stop) must be among the records in the store
// (sqlite: once the gateway has started again, which writes its journal's tail into the database).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import Anthropic from '@anthropic-ai/sdk';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startGateway, testConfig, type Gateway } from '../helpers/start-gateway.ts';
import { startRedis } from '../redis/redis-server.ts';

const KEY = 'sk-crash-durability-0001';
const [anth, chat, redis] = await Promise.all([startAnthropicUpstream(), startOpenAIChatUpstream(), startRedis()]);
t.teardown(async () => {
  await Promise.all([anth.close(), chat.close()]);
  await redis.stop();
});

function config(storage: Record<string, unknown>): Record<string, unknown> {
  return testConfig({
    storage,
    keys: [{ id: 'tenant', secret: KEY, workspace: 'ws1' }],
    providers: {
      anth: { type: 'anthropic', base_url: anth.url, api_key: 'sk-up-a' },
      oa: { type: 'openai', base_url: chat.url, api_key: 'sk-up-c', api: 'chat_completions' },
    },
    models: {
      'relayed-x': { routes: [{ provider: 'anth', model: 'claude-up' }] },
      'translated-x': { routes: [{ provider: 'oa', model: 'gpt-up' }] },
    },
    // The default flush interval: what a store-and-forward ledger would lose in a crash.
    usage: { prices: { models: { 'relayed-x': { input: 3, output: 15 }, 'translated-x': { input: 2, output: 8 } } } },
  });
}

/** Requests in a loop on `workers` connections until the process dies; the ids whose answer arrived in full. */
async function loadUntilKilled(gw: Gateway, workers: number, killAfter: number): Promise<Set<string>> {
  const completed = new Set<string>();
  let n = 0;
  let dead = false;
  const kill = (): void => {
    if (dead) return;
    dead = true;
    gw.process.kill('SIGKILL');
  };
  const one = async (client: Anthropic): Promise<void> => {
    const i = n++;
    const id = `crash-${i}`;
    const body = {
      model: i % 4 < 2 ? 'relayed-x' : 'translated-x',
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: `request number ${i} wants its answer` }],
    };
    const headers = { 'x-request-id': id };
    if (i % 2 === 0) {
      await client.messages.create(body, { headers });
      completed.add(id);
    } else {
      const stream = await client.messages.create({ ...body, stream: true }, { headers });
      for await (const ev of stream) if (ev.type === 'message_stop') completed.add(id);
    }
    if (completed.size >= killAfter) kill();
  };
  await Promise.all(
    Array.from({ length: workers }, async () => {
      const client = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
      while (!dead) await one(client).catch(() => {});
    }),
  );
  await new Promise<void>((resolve) =>
    gw.process.exitCode !== null || gw.process.signalCode !== null
      ? resolve()
      : gw.process.once('exit', () => resolve()),
  );
  return completed;
}

function check(t: Test, completed: Set<string>, recorded: Set<string>): void {
  const missing = [...completed].filter((id) => !recorded.has(id));
  t.ok(completed.size >= 200, `${completed.size} answers completed before the kill`);
  t.same(missing, [], `every completed answer is in the ledger (${recorded.size} records)`);
}

t.test('sqlite: kill -9 under load loses no completed request', async (t) => {
  const db = join(mkdtempSync(join(tmpdir(), 'polygate-crash-')), 'ledger.db');
  const gw = await startGateway(config({ driver: 'sqlite', path: db }));
  const completed = await loadUntilKilled(gw, 16, 300);
  // The next start writes what the journal holds beyond the database into it (docs/usage-and-tracing.md).
  const again = await startGateway(config({ driver: 'sqlite', path: db }));
  await again.stop();
  const read = new DatabaseSync(db);
  const ids = read.prepare('SELECT request_id FROM usage_records').all() as { request_id: string }[];
  read.close();
  check(t, completed, new Set(ids.map((r) => r.request_id)));
  t.equal(new Set(ids.map((r) => r.request_id)).size, ids.length, 'and none twice');
});

t.test('redis: kill -9 under load loses no completed request', async (t) => {
  const gw = await startGateway(config({ driver: 'redis', url: `${redis.url}/4` }));
  const completed = await loadUntilKilled(gw, 16, 300);
  const client = new Redis(`${redis.url}/4`);
  t.teardown(() => void client.disconnect());
  const keys = await client.keys('polygate:usage:rec:*');
  const ids = new Set<string>();
  for (const k of keys)
    for (const json of await client.lrange(k, 0, -1)) ids.add((JSON.parse(json) as { request_id: string }).request_id);
  check(t, completed, ids);
});
