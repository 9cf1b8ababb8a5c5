// The counters behind the key limits, on both drivers: the sliding-window arithmetic, corrections,
// and concurrency slots; the Redis one against a real redis-server, shared by two clients.
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { MemoryRateCounter } from '../../src/services/limits/memory-rate-counter.ts';
import { slidingWindow, type RateCounter } from '../../src/services/limits/rate-counter.ts';
import { RedisRateCounter } from '../../src/services/limits/redis-rate-counter.ts';
import { backoffDelay } from '../../src/services/resilience/backoff.ts';
import { startRedis } from '../redis/redis-server.ts';

t.test('sliding window: the previous window counts by its overlap; the wait is when it would fit', async (t) => {
  t.same(slidingWindow(0, 0, 0, 60_000, 1, 1), { ok: true });
  t.same(
    slidingWindow(1, 0, 0, 60_000, 1, 1),
    { ok: false, retryAfterMs: 60_000 },
    'full now: wait into the next window until the count has aged out',
  );
  // 10 last window, half of it still overlapping: estimate 5; 6 more do not fit in 10.
  const r = slidingWindow(0, 10, 30_000, 60_000, 6, 10);
  t.equal(r.ok, false);
  t.equal(!r.ok && r.retryAfterMs, 6_000, 'at 36 s the overlap is 4, and 4 + 6 fits');
  t.same(slidingWindow(0, 10, 30_000, 60_000, 5, 10), { ok: true });
  t.same(slidingWindow(0, 0, 0, 60_000, 11, 10), { ok: false, retryAfterMs: 60_000 }, 'more than the limit never fits');
});

t.test('backoff: Retry-After wins and is capped; otherwise exponential with jitter', async (t) => {
  const p = { max_retries: 3, base_delay_ms: 100, max_delay_ms: 1000, max_retry_after_ms: 5000 };
  // [attempt, Retry-After seconds, jitter draw, expected delay, why]
  const cases: [number, number | undefined, number, number | undefined, string][] = [
    [1, 2, 0, 2000, 'Retry-After: 2 → at least 2 s'],
    [1, 10, 0, undefined, 'longer than max_retry_after_ms: give the route up'],
    [1, undefined, 0, 50, 'no Retry-After: attempt 1, least jitter'],
    [3, undefined, 1, 400, 'no Retry-After: attempt 3, most jitter'],
    [10, undefined, 1, 1000, 'capped'],
  ];
  for (const [attempt, retryAfter, draw, want, why] of cases) {
    t.equal(
      backoffDelay(attempt, p, retryAfter, () => draw),
      want,
      why,
    );
  }
});

async function contract(t: Test, make: () => RateCounter): Promise<void> {
  const a = make();
  const b = make();
  const key = `k-${Math.random()}`;
  t.equal((await a.take(`${key}:rpm`, 1, 2, 60_000)).ok, true);
  t.equal((await b.take(`${key}:rpm`, 1, 2, 60_000)).ok, true);
  const third = await a.take(`${key}:rpm`, 1, 2, 60_000);
  t.equal(third.ok, false, 'the limit holds across counters');
  t.ok(!third.ok && third.retryAfterMs > 0);

  const first = await a.take(`${key}:tpm`, 30, 100, 60_000);
  t.ok(first.ok);
  if (first.ok) await b.add(`${key}:tpm`, 50, 60_000, first.window);
  t.equal((await b.take(`${key}:tpm`, 30, 100, 60_000)).ok, false, 'a correction counts: 30 + 50 + 30 > 100');
  t.equal((await b.take(`${key}:tpm`, 20, 100, 60_000)).ok, true);

  const s1 = await a.acquireSlot(key, 2);
  const s2 = await b.acquireSlot(key, 2);
  t.ok(s1 && s2);
  t.equal(await a.acquireSlot(key, 2), undefined, 'two slots held');
  s1?.release();
  s1?.release();
  const s3 = await b.acquireSlot(key, 2);
  t.ok(s3, 'a released slot is free again (released once, however often called)');
  t.equal(await a.acquireSlot(key, 2), undefined);
  s2?.release();
  s3?.release();
}

t.test('memory counter', async (t) => {
  const shared = new MemoryRateCounter();
  await contract(t, () => shared);
});

t.test('redis counter: one budget for every client of one Redis', async (t) => {
  const redis = await startRedis();
  const clients: Redis[] = [];
  t.teardown(async () => {
    for (const c of clients) c.disconnect();
    await redis.stop();
  });
  await contract(t, () => {
    const c = new Redis(redis.url);
    clients.push(c);
    return new RedisRateCounter(c);
  });
});
