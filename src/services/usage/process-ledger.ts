import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import { RedisStore } from '../../infra/store/redis-store.ts';
import type { Store } from '../../infra/store/store.ts';
import { Ledger } from './ledger.ts';
import type { LedgerStore } from './ledger-store.ts';
import { MemoryLedgerStore } from './memory-ledger-store.ts';
import { RedisLedgerStore } from './redis-ledger-store.ts';
import { SqliteLedgerStore } from './sqlite-ledger-store.ts';

/** The ledger beside the gateway's store (same driver, same file or Redis). */
function openLedgerStore(config: GatewayConfig, store: Store): LedgerStore {
  const s = config.storage;
  switch (s.driver) {
    case 'memory':
      return new MemoryLedgerStore();
    case 'sqlite':
      return new SqliteLedgerStore(s.path === ':memory:' ? ':memory:' : resolve(s.path ?? './data/polygate.db'));
    case 'redis': {
      if (!(store instanceof RedisStore)) throw new Error('the redis ledger needs the redis store');
      return new RedisLedgerStore(store.client, store.prefix, config.usage.retention_days);
    }
    default: {
      const never: never = s.driver;
      return never;
    }
  }
}

/**
 * The usage ledger of one gateway (src/services/runtime/services.ts), opened on first use, and kept across reloads
 * (its flush interval and retention are the ones in force when it opened).
 */
export class ProcessLedger {
  readonly #store: Store;
  readonly #log: Logger;
  #ledger: Ledger | undefined;

  constructor(store: Store, log: Logger) {
    this.#store = store;
    this.#log = log;
  }

  /** The ledger, or undefined while `usage.ledger` is off in the config in force. */
  of(config: GatewayConfig): Ledger | undefined {
    if (!config.usage.ledger) return undefined;
    const u = config.usage;
    const log = this.#log;
    this.#ledger ??= new Ledger(
      openLedgerStore(config, this.#store),
      {
        flushIntervalMs: u.flush_interval_ms,
        batchSize: u.batch_size,
        retentionDays: u.retention_days,
        storeWaitMs: u.store_wait_ms,
      },
      () => log,
    );
    return this.#ledger;
  }

  /** Writes every queued record (after the requests in flight ended and before the store closes). */
  async close(): Promise<void> {
    const l = this.#ledger;
    this.#ledger = undefined;
    await l?.close();
  }
}
