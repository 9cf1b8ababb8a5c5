// Issue #25, item 2: budget settings are checked before a gateway runs them. `npm run
// check-config` (src/app/check-config.ts, the loader's JSON Schema and cross-checks) refuses a bad
// budget with its path named, and accepts both forms of a key budget, workspace and provider
// budgets and the webhook.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { node24, repoRoot, testConfig } from '../helpers/start-gateway.ts';
import { loadConfigFile } from '../../src/infra/config/load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'polygate-budget-config-'));
let n = 0;

function write(usage: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const file = join(dir, `gateway-${++n}.yaml`);
  writeFileSync(file, stringify(testConfig({ usage, ...extra })));
  return file;
}

function check(file: string): { status: number | null; out: string } {
  const r = spawnSync(node24, ['src/app/check-config.ts', file], { cwd: repoRoot, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

const good = {
  budgets: {
    test: { usd_per_day: 5, limits: [{ period: 'hour', usd: 1, soft_ratio: 0.8 }] },
    other: {
      limits: [
        { period: 'week', tokens: 1000 },
        { period: '30d', usd: 20 },
      ],
    },
  },
  workspace_budgets: { ws1: { limits: [{ period: 'month', usd: 100, tokens: 5_000_000, soft_ratio: 0.5 }] } },
  provider_budgets: { echo: { limits: [{ period: 'day', usd: 50 }] } },
  budget_webhook: { url: 'https://hooks.example.com/budget', secret: 'whsec-1' },
};

t.test(
  'both key forms, workspace and provider budgets and the webhook pass, in the shape the checks read',
  async (t) => {
    const file = write(good);
    const r = check(file);
    t.equal(r.status, 0, r.out);
    const c = loadConfigFile(file).config;
    t.same(c.usage.budgets.test, {
      limits: [
        { period: 'hour', usd: 1, soft_ratio: 0.8 },
        { period: 'day', usd: 5 },
      ],
    });
    t.same(c.usage.workspace_budgets.ws1.limits[0], { period: 'month', usd: 100, tokens: 5_000_000, soft_ratio: 0.5 });
    t.same(c.usage.budget_webhook, { url: 'https://hooks.example.com/budget', secret: 'whsec-1' });
  },
);

const bad: [string, Record<string, unknown>, RegExp][] = [
  [
    'an unknown period',
    { workspace_budgets: { ws1: { limits: [{ period: 'fortnight', usd: 1 }] } } },
    /\/usage\/workspace_budgets\/ws1\/limits\/0\/period/,
  ],
  [
    'a limit with no amount',
    { provider_budgets: { echo: { limits: [{ period: 'day' }] } } },
    /\/usage\/provider_budgets\/echo\/limits\/0/,
  ],
  [
    'a negative amount',
    { budgets: { test: { limits: [{ period: 'hour', usd: -1 }] } } },
    /\/usage\/budgets\/test\/limits\/0\/usd/,
  ],
  [
    'a soft ratio above 1',
    { budgets: { test: { limits: [{ period: 'day', usd: 1, soft_ratio: 1.5 }] } } },
    /\/usage\/budgets\/test\/limits\/0\/soft_ratio/,
  ],
  [
    'a provider that does not exist',
    { provider_budgets: { nope: { limits: [{ period: 'day', usd: 1 }] } } },
    /\/usage\/provider_budgets\/nope: unknown provider 'nope'/,
  ],
  [
    'a key that does not exist',
    { budgets: { ghost: { limits: [{ period: 'day', usd: 1 }] } } },
    /\/usage\/budgets\/ghost: unknown key id/,
  ],
  [
    'a period limited twice',
    { budgets: { test: { usd_per_day: 1, limits: [{ period: 'day', tokens: 5 }] } } },
    /\/usage\/budgets\/test\/limits\/1\/period: period 'day' is limited twice/,
  ],
  [
    'an unknown field in a limit',
    { workspace_budgets: { ws1: { limits: [{ period: 'day', usd: 1, hard: true }] } } },
    /\/usage\/workspace_budgets\/ws1\/limits\/0.*hard/,
  ],
  [
    'a workspace budget without limits',
    { workspace_budgets: { ws1: { usd_per_day: 1 } } },
    /\/usage\/workspace_budgets\/ws1/,
  ],
  ['a webhook that is not http(s)', { budget_webhook: { url: 'file:///etc/passwd' } }, /\/usage\/budget_webhook\/url/],
  ['a webhook without url', { budget_webhook: { secret: 'x' } }, /\/usage\/budget_webhook/],
  [
    'budgets with the ledger off',
    { ledger: false, workspace_budgets: { ws1: { limits: [{ period: 'day', usd: 1 }] } } },
    /\/usage\/workspace_budgets: budgets are enforced from the ledger/,
  ],
];

for (const [what, usage, named] of bad)
  t.test(`refused with the path named: ${what}`, async (t) => {
    const r = check(write(usage));
    t.equal(r.status, 1, 'check-config fails');
    t.match(r.out, named);
  });

t.test('warnings: a soft ratio with no webhook, a webhook with no secret', async (t) => {
  const r = check(write({ budgets: { test: { limits: [{ period: 'day', usd: 1, soft_ratio: 0.5 }] } } }));
  t.equal(r.status, 0, r.out);
  t.match(r.out, /warning: usage: a budget limit has soft_ratio but usage.budget_webhook is not set/);
  const u = check(write({ budget_webhook: { url: 'https://hooks.example.com/x' } }));
  t.equal(u.status, 0, u.out);
  t.match(u.out, /warning: usage.budget_webhook.secret is empty: budget webhooks are sent unsigned/);
});
