// The live services of one gateway (docs/architecture.md, "Services and the runtime"): built once
// by src/main.ts (or by a test, test/helpers/in-process-app.ts), handed to createApp
// (src/app/app.ts), and reached by handlers through ctx.state.services. Nothing here is a
// module-level singleton, so two gateways in one process share no store, breaker or counter.
//
// Services outlive config reloads; the runtime (src/services/runtime/runtime.ts) is what a reload swaps. So the
// store, ledger and tracer keep the settings in force at start (changing `storage` or `tracing`
// takes a restart: moving live tasks between databases under running pollers is not something to
// do implicitly), the breakers keep what they learnt about each upstream, and the rate counters
// keep each key's window.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import { openRateCounter } from '../limits/open-rate-counter.ts';
import type { RateCounter } from '../limits/rate-counter.ts';
import { createRelayProxy, type RelayProxy } from '../../infra/upstream/relay-proxy.ts';
import { BreakerBoard } from '../resilience/breaker-board.ts';
import type { RuntimeRef } from './runtime.ts';
import { openStore } from '../../infra/store/open-store.ts';
import { RedisStore } from '../../infra/store/redis-store.ts';
import type { Store } from '../../infra/store/store.ts';
import { openTracing, type Tracing } from '../../infra/tracing/tracer.ts';
import { ProcessLedger } from '../usage/process-ledger.ts';
import { openKeyTable } from '../auth/open-key-table.ts';
import { RuntimeKeys } from '../auth/runtime-keys.ts';

/** How often an instance asks a shared key table (sqlite, Redis) whether a key changed (issue #25: within a second). */
const keyPollMs = 250;

export type Services = {
  /** The runtime in force; a reload (src/app/reload-config.ts) replaces `ref.current` whole. */
  readonly ref: RuntimeRef;
  readonly log: Logger;
  /** Tasks, callbacks, stored responses. */
  readonly store: Store;
  readonly ledger: ProcessLedger;
  /** Keys created at runtime through the admin API (src/services/auth/runtime-keys.ts), beside the YAML's. */
  readonly keys: RuntimeKeys;
  /** Undefined when tracing is off. */
  readonly tracing: Tracing | undefined;
  /** Per-key rpm and tpm windows (src/services/access/key-limits.ts). */
  readonly rateCounter: RateCounter;
  readonly breakers: BreakerBoard;
  /** The same-format relay's proxy (src/families/chat/pass-through.ts). */
  readonly proxy: RelayProxy;
  /** Music task polling and callbacks, once the server listens (src/main.ts). */
  tuneRunner?: { stop(): Promise<void> };
  /**
   * Writes a request's usage record and resolves once it is stored (bounded): a stream calls it
   * before its final event. Set by the app (src/app/record-usage.ts, commitUsage).
   */
  commitUsage?: (state: object, status: number) => Promise<void>;
};

/** Opens the services for the runtime in `ref` (a Redis store is connected before this resolves). */
export async function openServices(ref: RuntimeRef, log: Logger): Promise<Services> {
  const config = ref.current.config;
  const store = await openConnectedStore(config.storage);
  try {
    const ledger = new ProcessLedger(store, log);
    // Opened now, not at the first request: the sqlite ledger writes its journal's tail (records
    // of answers sent before a crash) into the database as it opens.
    ledger.of(config);
    const keys = new RuntimeKeys(openKeyTable(config.storage, store), log);
    // Read before the first request: a restarted instance knows every key at once.
    await keys.sync();
    if (config.storage.driver !== 'memory') keys.start(keyPollMs);
    return {
      ref,
      log,
      store,
      ledger,
      keys,
      tracing: openTracing(config),
      rateCounter: openRateCounter(store),
      breakers: new BreakerBoard(log),
      proxy: createRelayProxy(),
    };
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
}

async function openConnectedStore(storage: GatewayConfig['storage']): Promise<Store> {
  let store: Store | undefined;
  try {
    store = openStore(storage);
    if (store instanceof RedisStore) await store.ready();
    return store;
  } catch (e) {
    await store?.close().catch(() => {});
    throw new Error(`cannot open storage (${storage.driver}): ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Closes the services once no request is left (src/main.ts drains first): background task steps
 * end, the ledger writes its last records into the store, the last spans are exported, then the
 * store and the runtime's upstream pools close.
 */
export async function closeServices(s: Services): Promise<void> {
  const { log } = s;
  await s.tuneRunner?.stop();
  await s.ledger.close().catch((err: unknown) => log.error({ err }, 'closing the usage ledger failed'));
  await s.keys.close().catch((err: unknown) => log.error({ err }, 'closing the key table failed'));
  await s.tracing?.shutdown().catch((err: unknown) => log.error({ err }, 'exporting the last spans failed'));
  await s.store.close().catch((err: unknown) => log.error({ err }, 'closing the store failed'));
  await s.ref.current.close().catch(() => {});
}
