// Issue #25, item 2: a runtime key's budget (ApiKey.budget, filled by the key store) is checked
// like a YAML key's, and GET /admin/budgets lists it (source 'runtime') from the key table it is
// given; a YAML budget for the same id wins.
import t from 'tap';
import { budgetScopes, budgetRows, keyBudgetRows } from '../../src/services/access/budget-status.ts';
import { requestScopes } from '../../src/services/access/budget-scopes.ts';
import type { GatewayConfig } from '../../src/infra/config/gateway-config.ts';
import { usageDefaults } from '../../src/infra/config/usage-config.ts';
import type { ApiKey } from '../../src/services/auth/key-ring.ts';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { MemoryLedgerStore } from '../../src/services/usage/memory-ledger-store.ts';
import { sampleRecord } from './sample-record.ts';

const config = {
  usage: usageDefaults({
    budgets: { yaml: { usd_per_day: 2 } },
    workspace_budgets: { default: { limits: [{ period: 'month', tokens: 1000, soft_ratio: 0.5 }] } },
  }),
} as unknown as GatewayConfig;

const key = (id: string, budget?: ApiKey['budget']): ApiKey => ({
  id,
  workspace: 'default',
  allows: () => true,
  limits: { rpm: 0, tpm: 0, concurrency: 0 },
  ...(budget && { budget }),
});

t.test('a runtime key carries its budget to the checks; the YAML one wins for a YAML id', async (t) => {
  const rt = key('rt-1', { limits: [{ period: 'hour', usd: 0.5 }] });
  t.match(requestScopes(config, rt), [
    { scope: { kind: 'key', id: 'rt-1' }, source: 'runtime', limits: [{ period: 'hour', costNano: 500_000_000 }] },
    { scope: { kind: 'workspace', id: 'default' }, source: 'config' },
  ]);
  t.match(requestScopes(config, key('yaml', { limits: [{ period: 'hour', usd: 9 }] })), [
    { scope: { kind: 'key', id: 'yaml' }, source: 'config', limits: [{ period: 'day', costNano: 2_000_000_000 }] },
    { scope: { kind: 'workspace' } },
  ]);
  const changed = { ...rt, budget: { limits: [{ period: 'week' as const, tokens: 10 }] } };
  t.match(requestScopes(config, changed)[0], { limits: [{ period: 'week', tokens: 10 }] }, 'a new budget is read');
});

t.test('the listing: YAML keys, runtime keys fed by the key store, workspaces; used from the ledger', async (t) => {
  const ledger = new Ledger(
    new MemoryLedgerStore(),
    { flushIntervalMs: 3_600_000, batchSize: 100, retentionDays: 90 },
    () => undefined,
  );
  t.teardown(() => ledger.close());
  ledger.add(sampleRecord(1, { key: 'rt-1', cost_nano: 100_000_000 }));
  const scopes = await budgetScopes(config, async () => [
    { id: 'rt-1', budget: { limits: [{ period: 'hour', usd: 0.5 }] } },
    { id: 'no-budget', budget: null },
    { id: 'yaml', budget: { limits: [{ period: 'hour', usd: 1 }] } },
  ]);
  t.same(
    scopes.map((s) => [s.scope.kind, s.scope.id, s.source]),
    [
      ['key', 'yaml', 'config'],
      ['key', 'rt-1', 'runtime'],
      ['workspace', 'default', 'config'],
    ],
  );
  const rows = await budgetRows(ledger, scopes, Date.now());
  t.match(rows[1], {
    scope: { kind: 'key', id: 'rt-1' },
    period: 'hour',
    limit_usd: 0.5,
    used_usd: 0.1,
    ratio: 0.2,
    source: 'runtime',
  });
  t.match(rows[2], {
    scope: { kind: 'workspace', id: 'default' },
    limit_tokens: 1000,
    used_tokens: 30,
    soft_ratio: 0.5,
  });
  const own = await keyBudgetRows(ledger, config, key('rt-1', { limits: [{ period: 'hour', usd: 0.5 }] }), Date.now());
  t.same(
    own.map((r) => r.scope.kind),
    ['key', 'workspace'],
    "the tenant's view: its key's and its workspace's budgets",
  );
});
