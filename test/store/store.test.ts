// The Store contract, run against every driver this build has: memory, sqlite and redis (on a
// redis-server of its own). What only one driver does is tested beside it: sqlite's reopen below,
// Redis TTLs and two clients competing in test/redis/redis-store.test.ts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { MemoryStore } from '../../src/infra/store/memory-store.ts';
import { RedisStore } from '../../src/infra/store/redis-store.ts';
import { SqliteStore } from '../../src/infra/store/sqlite-store.ts';
import type { Store } from '../../src/infra/store/store.ts';
import { startRedis } from '../redis/redis-server.ts';

/** A driver's set-up (within its own subtest, so a server it needs stops with it) and how it opens an empty store. */
const drivers: Array<[string, (t: Test) => Promise<() => Store>]> = [
  ['memory', async () => () => new MemoryStore()],
  ['sqlite', async () => () => new SqliteStore(join(mkdtempSync(join(tmpdir(), 'polygate-store-')), 'db', 'test.db'))],
  [
    'redis',
    async (t) => {
      const redis = await startRedis();
      t.teardown(() => redis.stop());
      // Every store on its own key prefix: each test starts empty on the one server.
      return () => new RedisStore(redis.url, `t-${randomUUID()}:`);
    },
  ],
];

for (const [name, setUp] of drivers) {
  t.test(name, async (t) => {
    const open = await setUp(t);
    t.test('get returns what put wrote, as a copy', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      const data = { a: 1, list: ['x'] };
      await s.put('ns', { id: 'd1', workspace: 'ws1', data, dueAt: null });
      data.list.push('y');
      const got = await s.get<typeof data>('ns', 'd1');
      t.same(got?.data, { a: 1, list: ['x'] });
      t.equal(got?.workspace, 'ws1');
      t.equal(await s.get('other-ns', 'd1'), undefined, 'namespaces are separate');
    });

    t.test('a read scoped to another workspace finds nothing', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.put('ns', { id: 'd1', workspace: 'ws1', data: 1, dueAt: null });
      t.ok(await s.get('ns', 'd1', 'ws1'));
      t.equal(await s.get('ns', 'd1', 'ws2'), undefined);
    });

    t.test('create inserts once', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      t.equal(await s.create('ns', { id: 'c', workspace: '', data: 'first', dueAt: null }), true);
      t.equal(await s.create('ns', { id: 'c', workspace: '', data: 'second', dueAt: null }), false);
      t.equal((await s.get<string>('ns', 'c'))?.data, 'first');
    });

    t.test('delete removes', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.put('ns', { id: 'd', workspace: '', data: 1, dueAt: null });
      await s.delete('ns', 'd');
      t.equal(await s.get('ns', 'd'), undefined);
    });

    t.test('expired documents read as absent and can be created again', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      await s.put('ns', { id: 'e', workspace: '', data: 1, dueAt: Date.now() - 1, expiresAt: Date.now() - 1 });
      t.equal(await s.get('ns', 'e'), undefined);
      t.same(await s.claimDue('ns', { now: Date.now(), limit: 10, leaseMs: 1000 }), [], 'expired work is not claimed');
      t.equal(await s.create('ns', { id: 'e', workspace: '', data: 2, dueAt: null }), true);
    });

    t.test('claimDue leases due documents, oldest first, once', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      const now = Date.now();
      await s.put('q', { id: 'late', workspace: '', data: 'late', dueAt: now - 10 });
      await s.put('q', { id: 'early', workspace: '', data: 'early', dueAt: now - 1000 });
      await s.put('q', { id: 'future', workspace: '', data: 'future', dueAt: now + 60_000 });
      await s.put('q', { id: 'idle', workspace: '', data: 'idle', dueAt: null });
      const first = await s.claimDue<string>('q', { now, limit: 10, leaseMs: 5000 });
      t.same(
        first.map((d) => d.id),
        ['early', 'late'],
      );
      t.same(await s.claimDue('q', { now, limit: 10, leaseMs: 5000 }), [], 'a live lease hides the document');
      const limited = await s.claimDue('q', { now: now + 6000, limit: 1, leaseMs: 5000 });
      t.same(
        limited.map((d) => d.id),
        ['early'],
        'an expired lease is claimable again; limit holds',
      );
      t.not(limited[0].token, first[0].token, 'a new claim, a new token');
    });

    t.test('a write with a lost claim token changes nothing', async (t) => {
      const s = open();
      t.teardown(() => s.close());
      const now = Date.now();
      await s.put('q', { id: 'w', workspace: '', data: 'v0', dueAt: now });
      const [a] = await s.claimDue<string>('q', { now, limit: 1, leaseMs: 10 });
      const [b] = await s.claimDue<string>('q', { now: now + 20, limit: 1, leaseMs: 10_000 });
      t.ok(a && b && a.token !== b.token);
      t.equal(await s.put('q', { ...a, data: 'stale' }, { token: a.token }), false);
      t.equal((await s.get<string>('q', 'w'))?.data, 'v0', 'the stale holder wrote nothing');
      t.equal(await s.put('q', { ...b, data: 'fresh', dueAt: now + 50 }, { token: b.token }), true);
      t.equal((await s.get<string>('q', 'w'))?.data, 'fresh');
      t.equal(await s.put('q', { ...b, data: 'again' }, { token: b.token }), false, 'a write-back releases the lease');
      const [next] = await s.claimDue<string>('q', { now: now + 60, limit: 1, leaseMs: 100 });
      t.equal(next?.id, 'w', 'and sets the next due time');
    });
  });
}

t.test('sqlite keeps documents across reopen and releases leases of the previous process', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'polygate-store-')), 'test.db');
  const now = Date.now();
  const s1 = new SqliteStore(file);
  await s1.put('q', { id: 'job', workspace: 'ws', data: { n: 1 }, dueAt: now });
  t.equal((await s1.claimDue('q', { now, limit: 1, leaseMs: 600_000 })).length, 1);
  await s1.close();
  const s2 = new SqliteStore(file);
  t.teardown(() => s2.close());
  t.same((await s2.get('q', 'job'))?.data, { n: 1 });
  const again = await s2.claimDue('q', { now, limit: 1, leaseMs: 1000 });
  t.same(
    again.map((d) => d.id),
    ['job'],
  );
});
