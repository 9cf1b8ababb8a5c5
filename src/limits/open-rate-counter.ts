import type { GatewayConfig } from '../config/gateway-config.ts';
import { processStoreOf } from '../store/open-store.ts';
import { RedisStore } from '../store/redis-store.ts';
import { MemoryRateCounter } from './memory-rate-counter.ts';
import type { RateCounter } from './rate-counter.ts';
import { RedisRateCounter } from './redis-rate-counter.ts';

let counter: RateCounter | undefined;

/**
 * The counters of this process, on the same footing as the store: with the redis driver they are
 * kept in that Redis (every instance sees one budget per key), otherwise in memory.
 */
export function rateCounterOf(storage: GatewayConfig['storage']): RateCounter {
  if (counter) return counter;
  const store = processStoreOf(storage);
  counter = store instanceof RedisStore ? new RedisRateCounter(store.client, store.prefix) : new MemoryRateCounter();
  return counter;
}
