import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { slidingWindow, type RateCounter, type Slot, type TakeResult } from './rate-counter.ts';

// Each step is one Lua script, so concurrent instances never interleave a read and its write.
// Time comes from the Redis server (TIME), not from each instance's clock, so instances agree on
// which window a request falls in. Keys are built inside the scripts from that time; every key of
// one counter shares the `{…}` hash tag, so a counter lives on one node.

/** Returns {1, window} after adding, or {0, window, cur, prev, elapsed} when the amount does not fit. */
const takeScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local amount, limit, width = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local w = math.floor(now / width)
local cur = tonumber(redis.call('GET', KEYS[1] .. w) or '0')
local prev = tonumber(redis.call('GET', KEYS[1] .. (w - 1)) or '0')
local elapsed = now - w * width
if prev * (width - elapsed) / width + cur + amount <= limit then
  redis.call('INCRBY', KEYS[1] .. w, amount)
  redis.call('PEXPIRE', KEYS[1] .. w, width * 2)
  return {1, w}
end
return {0, w, cur, prev, elapsed}
`;

/** Slots are members scored by lease expiry, so a crashed instance's slots free themselves. */
const acquireScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

const renewScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return 1
`;

type Scripted = Redis & {
  pgRateTake(key: string, amount: number, limit: number, windowMs: number): Promise<number[]>;
  pgSlotAcquire(key: string, limit: number, token: string, leaseMs: number): Promise<number>;
  pgSlotRenew(key: string, token: string, leaseMs: number): Promise<number>;
};

/** A slot's lease outlives a crashed holder by at most this; a live holder renews it. */
const slotLeaseMs = 60_000;

/** Limits shared by every instance on one Redis (storage.driver: redis). */
export class RedisRateCounter implements RateCounter {
  readonly #redis: Scripted;
  readonly #prefix: string;

  constructor(redis: Redis, prefix = 'polygate:') {
    redis.defineCommand('pgRateTake', { numberOfKeys: 1, lua: takeScript });
    redis.defineCommand('pgSlotAcquire', { numberOfKeys: 1, lua: acquireScript });
    redis.defineCommand('pgSlotRenew', { numberOfKeys: 1, lua: renewScript });
    this.#redis = redis as Scripted;
    this.#prefix = prefix;
  }

  #key(kind: string, key: string): string {
    return `${this.#prefix}${kind}:{${key}}:`;
  }

  async take(key: string, amount: number, limit: number, windowMs: number): Promise<TakeResult> {
    const [ok, window, cur = 0, prev = 0, elapsed = 0] = (
      await this.#redis.pgRateTake(this.#key('rate', key), amount, limit, windowMs)
    ).map(Number);
    if (ok === 1) return { ok: true, window };
    const r = slidingWindow(cur, prev, elapsed, windowMs, amount, limit);
    return { ok: false, retryAfterMs: r.ok ? 1 : r.retryAfterMs };
  }

  async add(key: string, amount: number, windowMs: number, window: number): Promise<void> {
    const k = `${this.#key('rate', key)}${window}`;
    await this.#redis
      .multi()
      .incrby(k, amount)
      .pexpire(k, windowMs * 2)
      .exec();
  }

  async acquireSlot(key: string, limit: number): Promise<Slot | undefined> {
    const k = this.#key('slots', key);
    const token = randomUUID();
    if ((await this.#redis.pgSlotAcquire(k, limit, token, slotLeaseMs)) !== 1) return undefined;
    // Long streams outlive the lease: renew it while the request runs.
    const renew = setInterval(
      () => void this.#redis.pgSlotRenew(k, token, slotLeaseMs).catch(() => {}),
      slotLeaseMs / 3,
    );
    renew.unref();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        void this.#redis.zrem(k, token).catch(() => {});
      },
    };
  }

  async close(): Promise<void> {
    // The connection belongs to the store, which closes it.
  }
}
