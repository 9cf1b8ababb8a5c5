import { globMatcher } from '../services/auth/key-ring.ts';
import { matchGlob } from '../services/routing/match-glob.ts';
import { fillTemplate, ModelRouter, PASS_THROUGH } from '../services/routing/model-router.ts';
import { servingRoutes } from '../infra/config/serving-routes.ts';
import type { LoadedConfig } from '../infra/config/gateway-config.ts';

/**
 * `check-config FILE --explain NAME`: which `models:` entry a client-facing name hits, where each
 * of its routes goes with the name filled in, which of them serve now, and which keys may use it.
 */
export function explainModel(loaded: LoadedConfig, name: string): string[] {
  const { config, disabledProviders } = loaded;
  const match = new ModelRouter(config.models, disabledProviders, config.upstream).resolve(name);
  if (!match) return [`${name}: no entry under models: matches; clients get 404 (model not found)`];
  const m = config.models[match.entry];
  const captures = match.glob ? (matchGlob(match.entry, name) ?? []) : [];
  const lines = [
    match.glob
      ? `${name}: glob entry '${match.entry}' (no exact entry of this name; the matching glob with the most literal characters, then the first written, wins)`
      : `${name}: exact entry '${match.entry}'`,
  ];
  const serving = new Set(servingRoutes(m.routes, disabledProviders));
  lines.push(`  strategy ${m.strategy ?? 'fallback'}; routes in order:`);
  m.routes.forEach((r, i) => {
    const upstream = fillTemplate(r.model ?? PASS_THROUGH, name, captures);
    const why = disabledProviders.get(r.provider);
    const state = why ? `disabled: ${why}` : serving.has(r) ? 'serves' : 'standby, idle while another route is enabled';
    lines.push(`  ${i + 1}. ${r.provider}/${upstream}${r.standby ? ' (standby)' : ''}: ${state}`);
  });
  if (serving.size === 0) lines.push('  no route can serve now: clients get 503');
  const keys = config.keys.filter((k) => globMatcher(k.models ?? ['*'])(name)).map((k) => k.id);
  lines.push(`  keys allowed to use it: ${keys.length > 0 ? keys.join(', ') : 'none (403 for every key)'}`);
  return lines;
}
