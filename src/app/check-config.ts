// `npm run check-config -- FILE [--explain NAME]…`: validates a config file the way the gateway
// would load it and exits non-zero on any problem, so an operator (or a CI job) checks before
// reloading. `--explain NAME` tells where a client-facing model name goes (docs/models.md).
import { parseArgs } from 'node:util';
import { explainModel } from './explain-model.ts';
import { ConfigError, loadConfigFile } from '../infra/config/load-config.ts';
import { unpricedModels } from '../services/usage/prices.ts';

const { values, positionals } = parseArgs({
  options: { explain: { type: 'string', multiple: true } },
  allowPositionals: true,
});
const file = positionals[0] ?? process.env.GATEWAY_CONFIG ?? 'config/gateway.yaml';
try {
  const loaded = loadConfigFile(file);
  for (const w of loaded.warnings) console.warn(`warning: ${w}`);
  const c = loaded.config;
  const unpriced = unpricedModels(c);
  if (unpriced.length > 0)
    console.log(
      `note: no price in usage.prices for ${unpriced.map((m) => `'${m}'`).join(', ')}: these models cost 0 in the usage ledger`,
    );
  console.log(
    `${file}: ok (${c.keys.length} keys, ${Object.keys(c.providers).length} providers, ${Object.keys(c.models).length} models)`,
  );
  for (const name of values.explain ?? []) console.log(explainModel(loaded, name).join('\n'));
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
