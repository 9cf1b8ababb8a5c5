// Issue #25, item 2: a provider budget that cannot be checked (the store does not answer, with
// usage.on_store_error: closed) skips the route instead of throwing inside the route loop, where a
// 503 would be retried and counted against the provider's circuit breaker; with no route left the
// request gets the 503, naming the store. With `open`, the route is served unchecked.
import t from 'tap';
import { admitRoute, providerRefusal } from '../../src/services/access/budgets.ts';
import type { GatewayConfig } from '../../src/infra/config/gateway-config.ts';
import { usageDefaults } from '../../src/infra/config/usage-config.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { RequestState } from '../../src/services/runtime/request-state.ts';
import { StoreWaitError } from '../../src/services/usage/ledger.ts';

function stateWith(onStoreError: 'closed' | 'open'): RequestState {
  const config = {
    usage: usageDefaults({
      on_store_error: onStoreError,
      provider_budgets: { pa: { limits: [{ period: 'day', usd: 1 }] } },
    }),
  } as unknown as GatewayConfig;
  // A ledger whose store does not answer in time.
  const ledger = { reserve: () => Promise.reject(new StoreWaitError('the usage store did not answer within 250 ms')) };
  return {
    runtime: { config },
    services: { ledger: { of: () => ledger }, log: { warn() {} } },
    key: { id: 'k', workspace: 'w' },
  } as unknown as RequestState;
}

const expected = () => ({ costNano: 1, tokens: 1 });

t.test('closed: the route is skipped, and the request answered 503 if none is left', async (t) => {
  const state = stateWith('closed');
  t.equal(await admitRoute(state, 'pa', expected), false, 'skipped, not thrown');
  t.equal(state.outcome, undefined, 'another route may still serve it');
  t.equal(await admitRoute(state, 'pb', expected), true, 'a provider without a budget is not asked');
  const err = providerRefusal(state);
  t.ok(err instanceof GatewayError);
  t.equal(err?.status, 503);
  t.match(err?.message, /cannot be checked: the usage store did not answer in time/);
  t.equal(state.outcome, 'budget_unavailable');
});

t.test('open: served unchecked', async (t) => {
  const state = stateWith('open');
  t.equal(await admitRoute(state, 'pa', expected), true);
  t.equal(providerRefusal(state), undefined);
});
