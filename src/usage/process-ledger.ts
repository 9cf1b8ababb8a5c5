import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { processStoreOf } from '../store/open-store.ts';
import { RedisStore } from '../store/redis-store.ts';
import { Ledger } from './ledger.ts';
import type { LedgerStore } from './ledger-store.ts';
import { MemoryLedgerStore } from './memory-ledger-store.ts';
import { RedisLedgerStore } from './redis-ledger-store.ts';
import { SqliteLedgerStore } from './sqlite-ledger-store.ts';

let ledger: Ledger | undefined;
let log: Logger | undefined;

export function logLedgerTo(logger: Logger): void {
  log = logger;
}

export const usageLog = (): Logger | undefined => log;

/** The ledger beside the process store (same driver, same file or Redis). */
function openLedgerStore(config: GatewayConfig): LedgerStore {
  const s = config.storage;
  switch (s.driver) {
    case 'memory':
      return new MemoryLedgerStore();
    case 'sqlite':
      return new SqliteLedgerStore(s.path === ':memory:' ? ':memory:' : resolve(s.path ?? './data/polygate.db'));
    case 'redis': {
      const store = processStoreOf(s);
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
 * The ledger of this process, opened on first use like the store, and kept across reloads (its
 * flush interval and retention are the ones in force when it opened). Undefined when
 * `usage.ledger` is off.
 */
export function ledgerOf(config: GatewayConfig): Ledger | undefined {
  if (!config.usage.ledger) return undefined;
  const u = config.usage;
  ledger ??= new Ledger(openLedgerStore(config), { flushIntervalMs: u.flush_interval_ms, batchSize: u.batch_size, retentionDays: u.retention_days }, () => log);
  return ledger;
}

/** Writes every queued record (src/main.ts, on SIGTERM, after the requests in flight ended and before the store closes). */
export async function closeLedger(): Promise<void> {
  const l = ledger;
  ledger = undefined;
  await l?.close();
}
