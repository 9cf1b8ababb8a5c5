// The Store contract (as test/store/store.test.ts states it for memory and sqlite) on the redis
// driver against a real redis-server, plus what only a shared store has: two clients competing for
// due work, and a dead holder's lease taken over once it has run out.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { RedisStore } from '../../src/infra/store/redis-store.ts';
import { startRedis } from './redis-server.ts';

const redis = await startRedis();
t.teardown(() => redis.stop());

/** A store on its own key prefix: every test starts empty. */
function open(prefix = `t-${randomUUID()}:`): RedisStore {
  const s = new RedisStore(redis.url, prefix);
  t.teardown(() => s.close());
  return s;
}

t.test('get returns what put wrote; namespaces and workspaces are separate', async (t) => {
  const s = open();
  await s.put('ns', { id: 'd1', workspace: 'ws1', data: { a: 1, list: ['x'] }, dueAt: null });
  t.same((await s.get('ns', 'd1'))?.data, { a: 1, list: ['x'] });
  t.equal(await s.get('other-ns', 'd1'), undefined);
  t.ok(await s.get('ns', 'd1', 'ws1'));
  t.equal(await s.get('ns', 'd1', 'ws2'), undefined, 'another workspace reads absent');
});

t.test('create inserts once (SET NX); delete removes', async (t) => {
  const s = open();
  t.equal(await s.create('ns', { id: 'c', workspace: '', data: 'first', dueAt: null }), true);
  t.equal(await s.create('ns', { id: 'c', workspace: '', data: 'second', dueAt: null }), false);
  t.equal((await s.get<string>('ns', 'c'))?.data, 'first');
  await s.delete('ns', 'c');
  t.equal(await s.get('ns', 'c'), undefined);
});

t.test('expiresAt is a TTL: expired documents read absent, are not claimed, can be created again', async (t) => {
  const s = open();
  await s.put('ns', { id: 'e', workspace: '', data: 1, dueAt: Date.now() - 1, expiresAt: Date.now() - 1 });
  t.equal(await s.get('ns', 'e'), undefined);
  t.same(await s.claimDue('ns', { now: Date.now(), limit: 10, leaseMs: 1000 }), []);
  t.equal(await s.create('ns', { id: 'e', workspace: '', data: 2, dueAt: null }), true);
  await s.put('ns', { id: 'f', workspace: '', data: 1, dueAt: null, expiresAt: Date.now() + 60_000 });
  const ttl = await s.client.pttl(`${s.prefix}doc:ns:f`);
  t.ok(ttl > 0 && ttl <= 60_000, 'the document carries its expiry as a Redis TTL');
});

t.test('claimDue leases due documents oldest first, once; an expired lease is claimable again', async (t) => {
  const s = open();
  const now = Date.now();
  await s.put('ns', { id: 'late', workspace: '', data: 'l', dueAt: now - 10 });
  await s.put('ns', { id: 'early', workspace: '', data: 'e', dueAt: now - 20 });
  await s.put('ns', { id: 'future', workspace: '', data: 'f', dueAt: now + 60_000 });
  await s.put('ns', { id: 'none', workspace: '', data: 'n', dueAt: null });
  const first = await s.claimDue<string>('ns', { now, limit: 10, leaseMs: 500 });
  t.same(
    first.map((d) => d.id),
    ['early', 'late'],
  );
  t.same(await s.claimDue('ns', { now, limit: 10, leaseMs: 500 }), [], 'leased documents are not claimed twice');
  const again = await s.claimDue<string>('ns', { now: now + 600, limit: 1, leaseMs: 500 });
  t.same(
    again.map((d) => d.id),
    ['early'],
    'after the lease ran out, claimable again; limit holds',
  );
  t.not(again[0].token, first[0].token);
});

t.test('a write with a lost claim token changes nothing; the winner writes and releases the lease', async (t) => {
  const s = open();
  const now = Date.now();
  await s.put('ns', { id: 'w', workspace: 'ws', data: 0, dueAt: now - 1 });
  const [stale] = await s.claimDue<number>('ns', { now, limit: 1, leaseMs: 100 });
  const [winner] = await s.claimDue<number>('ns', { now: now + 200, limit: 1, leaseMs: 100 });
  t.equal(
    await s.put('ns', { ...stale, data: 1, dueAt: null }, { token: stale.token }),
    false,
    'the stale holder loses',
  );
  t.equal((await s.get<number>('ns', 'w'))?.data, 0);
  t.equal(await s.put('ns', { ...winner, data: 2, dueAt: now + 50 }, { token: winner.token }), true);
  t.equal((await s.get<number>('ns', 'w'))?.data, 2);
  const [next] = await s.claimDue<number>('ns', { now: now + 60, limit: 1, leaseMs: 100 });
  t.equal(next?.id, 'w', 'a write-back releases the lease and sets the next due time');
});

t.test('two stores on one Redis never lease the same document together', async (t) => {
  const prefix = `t-${randomUUID()}:`;
  const a = open(prefix);
  const b = open(prefix);
  const now = Date.now();
  for (let i = 0; i < 40; i++) await a.put('jobs', { id: `j${i}`, workspace: '', data: i, dueAt: now - 1 });
  const [x, y] = await Promise.all([
    Promise.all([0, 1, 2, 3].map(() => a.claimDue('jobs', { now, limit: 7, leaseMs: 10_000 }))),
    Promise.all([0, 1, 2, 3].map(() => b.claimDue('jobs', { now, limit: 7, leaseMs: 10_000 }))),
  ]);
  const ids = [...x.flat(), ...y.flat()].map((d) => d.id);
  t.equal(ids.length, 40, 'every due document claimed');
  t.equal(new Set(ids).size, 40, 'none twice');
});
