// Finding: stored responses had a per-chain bound (limits.max_conversation_bytes) but none per
// workspace, so one tenant could fill the store with independent responses. Every driver now keeps
// each workspace's counted bytes exactly, in the same atomic step as the write (Store.putCounted),
// takes them off on delete, overwrite and expiry, and refuses a write past the limit, writing
// nothing. Memory and sqlite here; redis against a real redis-server.
import { mkdtempSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MemoryStore } from '../../src/infra/store/memory-store.ts';
import { RedisStore } from '../../src/infra/store/redis-store.ts';
import { SqliteStore } from '../../src/infra/store/sqlite-store.ts';
import { StoreQuotaError, type CountedDoc, type Store } from '../../src/infra/store/store.ts';
import { startRedis } from '../redis/redis-server.ts';

const redis = await startRedis();
t.teardown(() => redis.stop());

const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'polygate-ws-')), 'test.db');
const drivers: Array<[string, () => Store]> = [
  ['memory', () => new MemoryStore()],
  ['sqlite', () => new SqliteStore(dbPath())],
  ['redis', () => new RedisStore(redis.url, `t-${randomUUID()}:`)],
];

/** A document whose data is exactly `bytes` bytes of JSON (a string: two quotes plus its text). */
const doc = (ns: string, id: string, bytes: number, extra: { expiresAt?: number } = {}): CountedDoc => ({
  ns,
  doc: { id, workspace: 'ws1', data: 'x'.repeat(bytes - 2), dueAt: null, ...extra },
});

for (const [name, open] of drivers) {
  t.test(name, async (t) => {
    t.test('counted writes add up per workspace; a write past the limit writes nothing', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.putCounted('ws1', [doc('a', '1', 400), doc('b', '1', 300)], 1000);
      t.equal(await s.storedBytes('ws1'), 700);
      t.equal(await s.storedBytes('ws2'), 0, 'another workspace has its own total');
      const err = await s.putCounted('ws1', [doc('a', '2', 200), doc('b', '2', 200)], 1000).catch((e: unknown) => e);
      t.type(err, StoreQuotaError);
      t.match(err, { workspace: 'ws1', used: 700, adding: 400, limit: 1000 });
      t.equal(await s.get('a', '2'), undefined, 'all or nothing: the first document was not written either');
      t.equal(await s.storedBytes('ws1'), 700);
      await s.putCounted('ws2', [doc('a', '3', 900)], 1000);
      t.equal(await s.storedBytes('ws2'), 900, 'the full workspace does not limit another one');
      t.same((await s.get<string>('a', '1', 'ws1'))?.data.length, 398, 'the documents read back as written');
    });

    t.test('delete and overwrite take the bytes off again', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.putCounted('ws1', [doc('a', '1', 600), doc('a', '2', 300)], 1000);
      await s.delete('a', '1');
      t.equal(await s.storedBytes('ws1'), 300);
      await s.putCounted('ws1', [doc('a', '2', 500)], 1000);
      t.equal(await s.storedBytes('ws1'), 500, 'a counted overwrite replaces the old size');
      await s.putCounted('ws1', [doc('a', '2', 1000)], 1000);
      t.equal(await s.storedBytes('ws1'), 1000, 'what a write replaces makes room for it');
      await s.put('a', { id: '2', workspace: 'ws1', data: 'small', dueAt: null });
      t.equal(await s.storedBytes('ws1'), 0, 'an uncounted overwrite takes the counted bytes off');
      await s.delete('a', 'never-written');
      t.equal(await s.storedBytes('ws1'), 0);
    });

    t.test('expired documents never cause a refusal and leave the total', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.putCounted('ws1', [doc('a', 'old', 800, { expiresAt: Date.now() + 50 })], 1000);
      t.equal(await s.storedBytes('ws1'), 800);
      await new Promise((r) => setTimeout(r, 80));
      await s.putCounted('ws1', [doc('a', 'new', 900)], 1000);
      t.equal(await s.storedBytes('ws1'), 900, 'the expired document was taken off before the check');
      t.equal(await s.get('a', 'old'), undefined);
    });

    t.test('documents written by put and create are not counted', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.put('a', { id: '1', workspace: 'ws1', data: 'x'.repeat(5000), dueAt: null });
      await s.create('a', { id: '2', workspace: 'ws1', data: 'x'.repeat(5000), dueAt: null });
      t.equal(await s.storedBytes('ws1'), 0);
      await s.putCounted('ws1', [doc('b', '1', 1000)], 1000);
      t.equal(await s.storedBytes('ws1'), 1000);
    });
  });
}

t.test('sqlite keeps the total across a restart (a counter row, not a sum at open)', async (t) => {
  const path = dbPath();
  const a = new SqliteStore(path);
  await a.putCounted('ws1', [doc('a', '1', 700)], 1000);
  await a.close();
  const b = new SqliteStore(path);
  t.teardown(() => b.close());
  t.equal(await b.storedBytes('ws1'), 700);
  const err = await b.putCounted('ws1', [doc('a', '2', 400)], 1000).catch((e: unknown) => e);
  t.type(err, StoreQuotaError);
  await b.delete('a', '1');
  t.equal(await b.storedBytes('ws1'), 0);
});

t.test('redis: two clients racing for the last room; exactly one write fits', async (t) => {
  const prefix = `t-${randomUUID()}:`;
  const a = new RedisStore(redis.url, prefix);
  const b = new RedisStore(redis.url, prefix);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).putCounted('ws1', [doc('a', String(i), 300)], 1000)),
  );
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 3, '3 of 300 bytes fit in 1000');
  t.equal(await a.storedBytes('ws1'), 900);
});
