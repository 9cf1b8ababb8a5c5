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

let processStore: { store: Store; storage: GatewayConfig['storage'] } | undefined;

/**
 * The store of this process. It is opened once (src/main.ts, at start) and kept across config
 * reloads: a reload that changes `storage` takes effect at the next restart, because moving
 * live tasks between databases under running pollers is not something to do implicitly.
 */
export function openProcessStore(storage: GatewayConfig['storage']): Store {
  processStore ??= { store: openStore(storage), storage };
  return processStore.store;
}

/** The process store; opened with `storage` if nothing opened it yet (e.g. an app built in a test). */
export function processStoreOf(storage: GatewayConfig['storage']): Store {
  return openProcessStore(storage);
}

export async function closeProcessStore(): Promise<void> {
  const s = processStore;
  processStore = undefined;
  await s?.store.close();
}

/** Where files that belong with the store live (sandbox audio): beside the sqlite file, else undefined. */
export function storeFilesDir(storage: GatewayConfig['storage']): string | undefined {
  return storage.driver === 'sqlite' && storage.path !== ':memory:' ? resolve(storage.path ?? './data/polygate.db', '..') : undefined;
}
