// Anthropic's model discovery (`GET /v1/models` with `anthropic-version`; docs/discovery.md).
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { ListedModel, ModelDiscovery, WireQuery } from '../shared/format-module.ts';

/**
 * Anthropic's ModelInfo (node_modules/@anthropic-ai/sdk/resources/models.d.ts): the release date
 * is unknown, which the API marks with the epoch; the limits come from the model's
 * `context_window` and `max_output_tokens`; capabilities are not known to polygate (null).
 */
export const anthropicModel = (m: ListedModel) => ({
  type: 'model' as const,
  id: m.id,
  display_name: m.displayName ?? m.id,
  created_at: '1970-01-01T00:00:00Z',
  capabilities: null,
  deprecated_at: null,
  lifecycle: 'active' as const,
  line: null,
  max_input_tokens: m.contextWindow ?? null,
  max_tokens: m.maxOutputTokens ?? null,
  retires_at: null,
});

/**
 * Pages of `limit` (1 to 1000, default 20) after
 * `after_id` or, with `before_id` alone, the page right before it.
 */
export function anthropicModelList(models: readonly ListedModel[], q: WireQuery) {
  const limit = q.limit === undefined ? 20 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new GatewayError('invalid-request', 'limit: must be an integer from 1 to 1000', { param: 'limit' });
  const at = (name: 'after_id' | 'before_id'): number | undefined => {
    const id = q[name];
    if (id === undefined) return undefined;
    const i = models.findIndex((m) => m.id === id);
    if (i < 0)
      throw new GatewayError('invalid-request', `${name}: no model '${String(id)}' in this list`, { param: name });
    return i;
  };
  const after = at('after_id');
  const before = at('before_id');
  const backwards = before !== undefined && after === undefined;
  const end = backwards ? before : Math.min(before ?? models.length, (after ?? -1) + 1 + limit);
  const start = backwards ? Math.max(0, before - limit) : (after ?? -1) + 1;
  const data = models.slice(start, end).map(anthropicModel);
  return {
    data,
    has_more: backwards ? start > 0 : end < (before ?? models.length),
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}

/** Chat models only, paged; the 404 as the API words it. */
export const anthropicModels: ModelDiscovery = {
  kinds: 'chat',
  list: anthropicModelList,
  get: anthropicModel,
  idOf: (id) => id,
  notFound: (m) => `model: ${m}`,
};
