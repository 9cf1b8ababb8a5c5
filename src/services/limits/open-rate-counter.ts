import type { Store } from '../../infra/store/store.ts';
import { RedisStore } from '../../infra/store/redis-store.ts';
import { MemoryRateCounter } from './memory-rate-counter.ts';
import type { RateCounter } from './rate-counter.ts';
import { RedisRateCounter } from './redis-rate-counter.ts';

/**
 * The counters of one gateway (src/services/runtime/services.ts), on the same footing as its store: with the redis
 * driver they are kept in that Redis (every instance sees one budget per key), otherwise in memory.
 */
export function openRateCounter(store: Store): RateCounter {
  return store instanceof RedisStore ? new RedisRateCounter(store.client, store.prefix) : new MemoryRateCounter();
}
