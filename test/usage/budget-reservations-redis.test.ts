// The Redis ledger's budget admission (src/services/usage/redis-ledger-store.ts) on a real
// redis-server: check and reservation in one step whatever the concurrency, a record that ends its
// reservation in the same MULTI, and a crashed instance's reservations gone once their TTL passes
// (the script takes the time as an argument, so the test moves it instead of waiting a minute).
import { Redis } from 'ioredis';
import t from 'tap';
import {
  reservationTtlMs,
  zeroSpent,
  type Reservation,
  type ScopeLimits,
} from '../../src/services/usage/ledger-store.ts';
import { windowsOf } from '../../src/services/usage/budget-periods.ts';
import { RedisLedgerStore } from '../../src/services/usage/redis-ledger-store.ts';
import type { UsageRecord } from '../../src/services/usage/usage-record.ts';
import { startRedis } from '../redis/redis-server.ts';
import { sampleRecord } from './sample-record.ts';

const redis = await startRedis();
const client = new Redis(`${redis.url}/5`);
t.teardown(async () => {
  client.disconnect();
  await redis.stop();
});

const day = new Date().toISOString().slice(0, 10);
const none = [zeroSpent()];
const limitsOf = (scope: string): ScopeLimits[] => [{ scope, limits: [{ period: 'day', costNano: 1000, tokens: 0 }] }];
const readOf = (scope: string): ScopeLimits[] => [{ scope, limits: [] }];
let n = 0;
const reservation = (key: string, costNano: number): Reservation => ({
  scopes: [key],
  costNano,
  tokens: 0,
  id: `inst.${++n}`,
  settled: false,
});

t.test('concurrent admissions on two connections: exactly the room of the budget is reserved', async (t) => {
  const other = new Redis(`${redis.url}/5`);
  t.teardown(() => other.disconnect());
  const stores = [new RedisLedgerStore(client, 'pg:', 90), new RedisLedgerStore(other, 'pg:', 90)];
  const now = Date.now();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      stores[i % 2].admit(limitsOf('race'), reservation('race', 100), windowsOf(now), none, now),
    ),
  );
  t.equal(results.filter((r) => r.admitted).length, 10, '10 × 100 of 1,000: no more, no less');
});

t.test("a record ends its reservation; a crashed instance's reservations expire", async (t) => {
  const store = new RedisLedgerStore(client, 'pg:', 90);
  // Mid-hour: `later` (a minute on) is in the same windows.
  const now = Date.parse(`${day}T12:30:00Z`);
  const a = reservation('k', 600);
  t.ok((await store.admit(limitsOf('k'), a, windowsOf(now), none, now)).admitted);
  const b = reservation('k', 600);
  const second = await store.admit(limitsOf('k'), b, windowsOf(now), none, now);
  t.ok(second.admitted, 'used 600 < 1,000: admitted');
  t.equal(second.spent[0].day.costNano, 600, 'the first reservation counts');
  const third = await store.admit(limitsOf('k'), reservation('k', 600), windowsOf(now), none, now);
  t.notOk(third.admitted, 'used 1,200: refused');
  t.equal(third.spent[0].day.costNano, 1200);

  const record = { key: 'k', day, ts: now, cost_nano: 250 } as UsageRecord;
  await store.append([{ ...baseRecord, ...record }], [a]);
  const read = await store.admit(readOf('k'), undefined, windowsOf(now), none, now);
  t.equal(read.spent[0].day.costNano, 250 + 600, 'the record replaced its reservation; the other is still live');

  // The instance holding `b` died: nobody renews it.
  const later = now + reservationTtlMs + 1;
  const after = await store.admit(readOf('k'), undefined, windowsOf(later), none, later);
  t.equal(after.spent[0].day.costNano, 250, 'its reservation expired; the record stays');
  await store.renew([b], now);
  t.equal(
    (await store.admit(readOf('k'), undefined, windowsOf(later), none, later)).spent[0].day.costNano,
    250,
    'renewing an expired reservation does not bring it back',
  );
});

const baseRecord: UsageRecord = sampleRecord(1, { ts: 0, day, cost_nano: 0 });
