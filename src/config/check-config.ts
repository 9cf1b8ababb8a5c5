// `npm run check-config -- FILE`: validates a config file the way the gateway would load it and
// exits non-zero on any problem, so an operator (or a CI job) checks before reloading.
import { ConfigError, loadConfigFile } from './load-config.ts';

const file = process.argv[2] ?? process.env.GATEWAY_CONFIG ?? 'config/gateway.yaml';
try {
  const loaded = loadConfigFile(file);
  for (const w of loaded.warnings) console.warn(`warning: ${w}`);
  const c = loaded.config;
  console.log(`${file}: ok (${c.keys.length} keys, ${Object.keys(c.providers).length} providers, ${Object.keys(c.models).length} models)`);
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
