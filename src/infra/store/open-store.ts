import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { MemoryStore } from './memory-store.ts';
import { RedisStore } from './redis-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/** Opens the configured driver. Relative sqlite paths are relative to the working directory. */
export function openStore(storage: GatewayConfig['storage']): Store {
  switch (storage.driver) {
    case 'memory':
      return new MemoryStore();
    case 'sqlite':
      return new SqliteStore(storage.path === ':memory:' ? ':memory:' : resolve(storage.path ?? './data/polygate.db'));
    case 'redis':
      // Several instances on one Redis share stored responses, tasks, callbacks and key limits.
      if (!storage.url) throw new Error('storage.url (redis://host:port/db) is required with driver "redis"');
      return new RedisStore(storage.url);
    default: {
      const never: never = storage.driver;
      return never;
    }
  }
}

/** Where files that belong with the store live (sandbox audio): beside the sqlite file, else undefined. */
export function storeFilesDir(storage: GatewayConfig['storage']): string | undefined {
  return storage.driver === 'sqlite' && storage.path !== ':memory:'
    ? resolve(storage.path ?? './data/polygate.db', '../..')
    : undefined;
}
