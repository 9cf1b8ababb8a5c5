// What only the redis driver does, against a real redis-server: expiry kept as a Redis TTL, and two
// clients of one Redis competing for due work. The Store contract itself runs on this driver with
// memory and sqlite in test/store/store.test.ts; a dead holder's lease taken over by another
// instance is test/redis/lease-takeover.test.ts.
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

t.test('expiresAt is a Redis TTL on the document, and a document without one has none', async (t) => {
  const s = open();
  await s.put('ns', { id: 'f', workspace: '', data: 1, dueAt: null, expiresAt: Date.now() + 60_000 });
  const ttl = await s.client.pttl(`${s.prefix}doc:ns:f`);
  t.ok(ttl > 0 && ttl <= 60_000, 'the document carries its expiry as a Redis TTL');
  t.equal((await s.get<number>('ns', 'f'))?.data, 1, 'and reads until then');
  await s.put('ns', { id: 'g', workspace: '', data: 1, dueAt: null });
  t.equal(await s.client.pttl(`${s.prefix}doc:ns:g`), -1, 'no expiresAt, no TTL');
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
