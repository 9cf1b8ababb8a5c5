// Prices in the config: what each kind of quantity costs (cache reads and writes included), which
// price applies, what the schema and the cross-checks refuse, and check-config's note on models
// without a price.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, parseConfig } from '../../src/infra/config/load-config.ts';
import { costNano, noUnits, priceOf, unpricedModels } from '../../src/services/usage/prices.ts';
import { node24, repoRoot } from '../helpers/start-gateway.ts';

const base = (usage: string): string => `
keys:
  - { id: k, secret: sk-default-secret, workspace: w }
providers:
  echo: { type: echo }
  up: { type: openai, base_url: http://127.0.0.1:1/v1, api_key: sk-up }
models:
  priced: { routes: [ { provider: up, model: up-a } ] }
  by-route: { routes: [ { provider: up, model: up-b } ] }
  free: { routes: [ { provider: echo, model: e } ] }
${usage}`;

const priced = `
usage:
  prices:
    models:
      priced: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }
    providers:
      up: { up-b: { input: 2, output: 8 }, up-a: { input: 100, output: 100 } }
  budgets:
    k: { usd_per_day: 5 }
`;

t.test('tokens: uncached input, cache reads and writes at their prices, output with reasoning', async (t) => {
  const { config } = parseConfig(base(priced), 'p.yaml', {});
  const price = priceOf(config, 'priced', 'up', 'up-a');
  t.same(
    price,
    { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    "the client-facing model's price wins over the route's",
  );
  // 1,000 prompt tokens of which 600 read from and 100 written to the cache; 200 output.
  const u = { ...noUnits(), inputTokens: 1000, cacheReadTokens: 600, cacheWriteTokens: 100, outputTokens: 200 };
  // 300 × 3 + 600 × 0.3 + 100 × 3.75 + 200 × 15 = 900 + 180 + 375 + 3000 = 4455 USD per million → 4,455,000 nano-dollars.
  t.equal(costNano(price, u), 4_455_000);
  t.equal(
    costNano({ input: 3, output: 15 }, u),
    (300 + 600 + 100) * 3000 + 200 * 15_000,
    'cache tokens at the input price when they have none',
  );
  t.equal(costNano(undefined, u), 0, 'no price, no cost');
});

t.test("a route's provider-model price applies to a model without its own", async (t) => {
  const { config } = parseConfig(base(priced), 'p.yaml', {});
  t.same(priceOf(config, 'by-route', 'up', 'up-b'), { input: 2, output: 8 });
  t.equal(priceOf(config, 'free', 'echo', 'e'), undefined);
  t.same(unpricedModels(config), ['free']);
});

t.test('speech per character and second, music per task', async (t) => {
  t.equal(
    costNano({ per_character: 0.000015, per_second: 0.002 }, { ...noUnits(), characters: 22, audioSeconds: 1.5 }),
    22 * 15_000 + 3_000_000,
  );
  t.equal(costNano({ per_task: 0.05 }, { ...noUnits(), tasks: 3 }), 150_000_000);
});

t.test('the schema and the cross-checks refuse what cannot be right', async (t) => {
  const problems = (usage: string): string[] => {
    try {
      parseConfig(base(usage), 'x.yaml', {});
      return [];
    } catch (e) {
      return (e as ConfigError).problems;
    }
  };
  t.match(problems('usage: { prices: { models: { priced: { input: -1 } } } }'), [
    /\/usage\/prices\/models\/priced\/input.*>= 0/,
  ]);
  t.match(problems('usage: { prices: { models: { priced: { per_token: 1 } } } }'), [/per_token.*unknown field/]);
  t.match(problems('usage: { prices: { models: { nosuch: { input: 1 } } } }'), [
    /\/usage\/prices\/models\/nosuch: unknown model/,
  ]);
  t.match(problems('usage: { prices: { providers: { nosuch: { m: { input: 1 } } } } }'), [/unknown provider 'nosuch'/]);
  t.match(problems('usage: { budgets: { stranger: { usd_per_day: 1 } } }'), [
    /\/usage\/budgets\/stranger: unknown key id/,
  ]);
  t.match(problems('usage: { ledger: false, budgets: { k: { usd_per_day: 1 } } }'), [/need usage.ledger: true/]);
  t.match(problems('tracing: { sample_ratio: 2 }'), [/sample_ratio/]);
  t.same(problems(priced), []);
});

t.test('check-config names the models that cost 0', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'polygate-prices-')), 'gateway.yaml');
  writeFileSync(file, base(priced));
  const r = spawnSync(node24, ['src/app/check-config.ts', file], { cwd: repoRoot, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /note: no price in usage.prices for 'free': these models cost 0/);
  t.notMatch(r.stdout, /'priced'|'by-route'/);
});
