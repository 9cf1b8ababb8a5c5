import type { ListedModel, ModelDiscovery } from '../../../adapters/shared/format-module.ts';
import type { ApiKey } from '../../services/auth/key-ring.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';

/** `chat`: models a chat family can call (Gemini and Anthropic lists); `any`: speech and music too. */
export type CatalogKind = ModelDiscovery['kinds'];

function describe(runtime: Runtime, id: string, kind: CatalogKind): ListedModel | undefined {
  const match = runtime.router.resolve(id);
  const first = match?.routes[0];
  if (!match || !first) return undefined;
  if (
    kind === 'chat' &&
    (runtime.config.tune.music_models.includes(id) || !match.routes.some((r) => runtime.chatProviders.has(r.provider)))
  )
    return undefined;
  const c = match.config;
  return {
    id,
    ownedBy: first.provider,
    displayName: c.display_name,
    description: c.description,
    contextWindow: c.context_window,
    maxOutputTokens: c.max_output_tokens,
  };
}

/**
 * The models a key may use and that can serve now: the exact names under `models:`, in the
 * file's order, filtered by the key's allow-list. Globs are not listed (no finite list of names
 * matches them), but a name they match can be retrieved (`findModel`).
 */
export function listModels(runtime: Runtime, key: ApiKey, kind: CatalogKind): ListedModel[] {
  return runtime.router.names().flatMap((id) => {
    const m = key.allows(id) ? describe(runtime, id, kind) : undefined;
    return m ? [m] : [];
  });
}

/** One model by name (a glob's match too); unknown, outside the key's allow-list or unserved: 404. */
export function findModel(
  runtime: Runtime,
  key: ApiKey,
  id: string,
  kind: CatalogKind,
  message = (m: string) => `model '${m}' does not exist`,
): ListedModel {
  const m = key.allows(id) ? describe(runtime, id, kind) : undefined;
  if (!m) throw new GatewayError('not-found', message(id), { param: 'model' });
  return m;
}
