// The request log in each ledger store (#25): memory, sqlite and a real redis-server. Pages of
// records that share a millisecond (ties), with filters, read while newer records arrive: every
// record once, none skipped; content kept beside its record and deleted; old records (written
// before the log's fields, or by an older sqlite schema) still read; a committed record's log
// fields survive a crash through the sqlite journal; Redis pages end within the scan budget.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Redis } from 'ioredis';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import type { LedgerStore } from '../../src/services/usage/ledger-store.ts';
import { MemoryLedgerStore } from '../../src/services/usage/memory-ledger-store.ts';
import { RedisLedgerStore } from '../../src/services/usage/redis-ledger-store.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import {
  maxScanned,
  type RequestFilter,
  type RequestLogStore,
  type RequestQuery,
} from '../../src/services/usage/request-log.ts';
import type { UsageRecord } from '../../src/services/usage/usage-record.ts';
import { startRedis } from '../redis/redis-server.ts';
import { usageRecordsColumnsBeforeSearches, usageRecordsSearchColumns } from './old-ledger-tables.ts';
import { sampleRecord } from './sample-record.ts';

const redis = await startRedis();
const client = new Redis(redis.url);
t.teardown(async () => {
  client.disconnect();
  await redis.stop();
});

const tmp = (): string => join(mkdtempSync(join(tmpdir(), 'request-log-')), 'ledger.db');
let redisDb = 0;
const stores: [string, () => Promise<LedgerStore>][] = [
  ['memory', async () => new MemoryLedgerStore()],
  ['sqlite', async () => new SqliteLedgerStore(tmp())],
  [
    'redis',
    async () => {
      const c = new Redis(`${redis.url}/${++redisDb}`);
      t.teardown(() => c.disconnect());
      return new RedisLedgerStore(c, 'pgtest:', 90);
    },
  ],
];

const base = Date.now() - 60_000;

/** 40 records over 4 milliseconds (10 each), two keys and workspaces, a few refused. */
const batch = (from: number, n: number, tsBase = base): UsageRecord[] =>
  Array.from({ length: n }, (_, j) => {
    const i = from + j;
    return sampleRecord(i, {
      ts: tsBase + Math.floor(i / 10),
      key: i % 2 ? 'k1' : 'k2',
      workspace: i % 2 ? 'ws1' : 'ws2',
      model: i % 3 ? 'sonnet' : 'haiku',
      status: i % 7 === 0 ? 429 : 200,
      outcome: i % 7 === 0 ? 'rate_limited' : 'ok',
      route: '/v1/messages',
      latency_ms: i + 0.5,
      warnings: i % 5 === 0 ? [`top_k: dropped ${i}`] : undefined,
    });
  });

/** Every record of a query, page by page; `between` runs after the first page. */
async function readAll(
  log: RequestLogStore,
  f: RequestFilter,
  limit: number,
  between?: () => Promise<void>,
): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  let q: RequestQuery = { ...f, limit };
  for (let pages = 0; pages < 1000; pages++) {
    const p = await log.list(q);
    out.push(...p.records.map((r) => r.record));
    if (pages === 0) await between?.();
    if (!p.next) return out;
    q = { ...f, limit, after: p.next };
  }
  throw new Error('pagination does not end');
}

const ids = (rs: UsageRecord[]): string[] => rs.map((r) => r.request_id);
const newestFirst = (rs: UsageRecord[]): boolean => rs.every((r, i) => i === 0 || r.ts <= rs[i - 1].ts);

for (const [name, open] of stores) {
  t.test(`${name}: pages across ties, with filters, while records arrive`, async (t) => {
    const store = await open();
    t.teardown(() => store.close());
    const log = store.requestLog!;
    const records = batch(0, 40);
    await store.append(records, []);
    const later = batch(100, 5, base + 1000);
    const all = await readAll(log, {}, 3, async () => {
      // Newer records arriving between two pages are not in the pages after the cursor.
      await store.append(later, []);
    });
    t.equal(all.length, 40, 'every record');
    t.equal(new Set(ids(all)).size, 40, 'none twice');
    t.ok(newestFirst(all), 'newest first');
    for (const [f, want] of [
      [{ key: 'k1' }, (r: UsageRecord) => r.key === 'k1'],
      [{ workspace: 'ws2', model: 'haiku' }, (r: UsageRecord) => r.workspace === 'ws2' && r.model === 'haiku'],
      [{ status: { min: 400, max: 499 } }, (r: UsageRecord) => r.status === 429],
      [{ outcome: 'ok', provider: 'openai' }, (r: UsageRecord) => r.outcome === 'ok'],
      [{ since: base + 1, until: base + 3 }, (r: UsageRecord) => r.ts >= base + 1 && r.ts < base + 3],
    ] as const) {
      const got = await readAll(log, f, 4);
      const expected = [...records, ...later].filter(want);
      t.same(ids(got).sort(), ids(expected).sort(), `filter ${JSON.stringify(f)}: ${expected.length} records`);
      t.ok(newestFirst(got));
    }
    const one = await log.get('req-5');
    t.match(one?.record, {
      request_id: 'req-5',
      route: '/v1/messages',
      latency_ms: 5.5,
      warnings: ['top_k: dropped 5'],
    });
    t.equal(await log.get('req-404'), undefined);
  });

  t.test(`${name}: content beside its record, deleted, and records without the log's fields`, async (t) => {
    const store = await open();
    t.teardown(() => store.close());
    const log = store.requestLog!;
    const old = sampleRecord(1, { request_id: 'old-1', ts: base });
    const captured = sampleRecord(2, { request_id: 'cap-1', ts: base + 1, content_captured: true });
    await store.append([old, captured], []);
    const content = {
      request: '{"messages":[]}',
      response: 'data: {}',
      request_truncated: false,
      response_truncated: true,
      max_bytes: 10,
    };
    await log.putContent({ ...content, request_id: 'cap-1', ts: captured.ts, day: captured.day });
    t.same(await log.content('cap-1', captured.ts), {
      ...content,
      request_id: 'cap-1',
      ts: captured.ts,
      day: captured.day,
    });
    t.equal(
      await log.content('cap-1', captured.ts + 1),
      undefined,
      'content of another record with the same id is not shown',
    );
    const page = await log.list({ limit: 10 });
    t.same(
      page.records.map((r) => [r.record.request_id, r.hasContent]),
      [
        ['cap-1', true],
        ['old-1', false],
      ],
    );
    const oldRow = page.records[1].record;
    t.equal(oldRow.route, undefined);
    t.equal(oldRow.latency_ms, undefined);
    t.equal(oldRow.warnings, undefined);
    await log.deleteContent('cap-1');
    t.equal(await log.content('cap-1', captured.ts), undefined);
    t.equal((await log.get('cap-1'))?.hasContent, false);
  });
}

t.test('sqlite: a file of an older polygate gets the columns, and its rows read', async (t) => {
  const path = tmp();
  const db = new DatabaseSync(path);
  // The usage_records table as polygate created it before the request log (#25).
  db.exec(`CREATE TABLE usage_records (${usageRecordsColumnsBeforeSearches}, ${usageRecordsSearchColumns})`);
  db.prepare(
    `INSERT INTO usage_records VALUES (?, ?, 'old-row', 'k', 'ws', 'chat', 'm', 'p', 'u', 'openai-chat', 'openai-chat',
     'passthrough', 1, 2, 0, 0, 0, 0, 1500, 0, 330, 1, 'ok', 200, 'reported', 0, 0)`,
  ).run(base, sampleRecord(0, { ts: base }).day);
  db.close();
  const store = new SqliteLedgerStore(path);
  t.teardown(() => store.close());
  await store.append([sampleRecord(1, { ts: base + 1, route: '/v1/chat/completions' })]);
  const page = await store.requestLog.list({ limit: 10 });
  t.same(ids(page.records.map((r) => r.record)), ['req-1', 'old-row']);
  t.match(page.records[1].record, { request_id: 'old-row', audio_seconds: 1.5, priced: true, cost_nano: 330 });
  t.equal(page.records[1].record.route, undefined);
  t.equal(page.records[0].record.route, '/v1/chat/completions');
});

t.test("sqlite: a committed record's log fields survive a crash through the journal", async (t) => {
  const path = tmp();
  const opts = { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90 };
  const crashed = new Ledger(new SqliteLedgerStore(path), opts, () => undefined);
  const r = sampleRecord(7, {
    route: '/v1/messages',
    latency_ms: 12.5,
    ttfb_ms: 3.2,
    warnings: ['top_k: x'],
    content_captured: true,
  });
  await crashed.commit(r);
  // The process dies: the ledger is never closed; a new store opens the file.
  const reopened = new SqliteLedgerStore(path);
  t.teardown(() => reopened.close());
  t.match((await reopened.requestLog.get('req-7'))?.record, {
    route: '/v1/messages',
    latency_ms: 12.5,
    ttfb_ms: 3.2,
    warnings: ['top_k: x'],
    content_captured: true,
  });
});

t.test('sqlite and memory: retention drops content with its records', async (t) => {
  for (const store of [new SqliteLedgerStore(tmp()), new MemoryLedgerStore()]) {
    const old = sampleRecord(1, { ts: base - 10 * 86_400_000 });
    await store.append([old]);
    await store.requestLog.putContent({
      request_id: old.request_id,
      ts: old.ts,
      day: old.day,
      request: 'x',
      response: 'y',
      request_truncated: false,
      response_truncated: false,
      max_bytes: 1,
    });
    await store.prune(sampleRecord(0, { ts: base }).day);
    t.equal(await store.requestLog.content(old.request_id, old.ts), undefined);
    t.same((await store.requestLog.list({ limit: 10 })).records, []);
    await store.close();
  }
});

for (const [name, open] of stores.filter(([n]) => n !== 'memory'))
  t.test(`${name}: a filtered page ends within its scan budget, and the next one goes on from there`, async (t) => {
    const store = await open();
    t.teardown(() => store.close());
    const log = store.requestLog!;
    // One match below more than one scan budget of records that do not match.
    const needle = sampleRecord(0, { ts: base, key: 'needle' });
    const hay = Array.from({ length: maxScanned + 500 }, (_, i) => sampleRecord(i + 1, { ts: base + 1 + i }));
    await store.append([needle], []);
    for (let i = 0; i < hay.length; i += 2000) await store.append(hay.slice(i, i + 2000), []);
    const first = await log.list({ key: 'needle', limit: 10 });
    t.same(first.records, [], 'the first budget found nothing');
    t.ok(first.next, 'but says where to go on');
    t.same(ids(await readAll(log, { key: 'needle' }, 10)), ['req-0'], 'following the cursors finds it');
    t.same(ids(await readAll(log, {}, 500)).length, hay.length + 1, 'unfiltered pages have no budget');
    t.equal((await log.get('req-0'))?.record.key, 'needle', 'found by id below many newer records');
  });

t.test('redis: the log expires with the retention', async (t) => {
  const store = (await stores[2][1]()) as RedisLedgerStore;
  await store.append([sampleRecord(1)], []);
  const c = new Redis(`${redis.url}/${redisDb}`);
  t.teardown(() => c.disconnect());
  t.ok((await c.pttl('pgtest:usage:log')) > 0);
  t.ok((await c.pttl(`pgtest:usage:log:ids:${sampleRecord(1).day}`)) > 0);
});
