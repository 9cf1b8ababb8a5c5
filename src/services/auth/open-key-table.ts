import { resolve } from 'node:path';
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import { RedisStore } from '../../infra/store/redis-store.ts';
import type { Store } from '../../infra/store/store.ts';
import { MemoryKeyTable, type KeyTable } from './key-table.ts';
import { RedisKeyTable } from './redis-key-table.ts';
import { SqliteKeyTable } from './sqlite-key-table.ts';

/** The runtime keys' table beside the gateway's store (same driver, same file or Redis). */
export function openKeyTable(storage: GatewayConfig['storage'], store: Store): KeyTable {
  switch (storage.driver) {
    case 'memory':
      return new MemoryKeyTable();
    case 'sqlite':
      return new SqliteKeyTable(
        storage.path === ':memory:' ? ':memory:' : resolve(storage.path ?? './data/polygate.db'),
      );
    case 'redis':
      if (!(store instanceof RedisStore)) throw new Error('the redis key table needs the redis store');
      return new RedisKeyTable(store.client, store.prefix);
    default: {
      const never: never = storage.driver;
      return never;
    }
  }
}
