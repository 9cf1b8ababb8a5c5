// OpenAI's model discovery (`GET /v1/models`, `GET /v1/models/{model}`; docs/discovery.md).
import type { ListedModel, ModelDiscovery } from '../shared/format-module.ts';

/**
 * OpenAI's Model object (node_modules/openai/resources/models.d.ts). polygate knows no creation
 * date, so `created` is 0 (the epoch), as Anthropic's list does for unknown release dates.
 */
export const openaiModel = (m: ListedModel) => ({
  id: m.id,
  object: 'model' as const,
  created: 0,
  owned_by: m.ownedBy,
});

/** Every model a key may call, speech and music included, in one page as OpenAI lists them. */
export const openaiModels: ModelDiscovery = {
  kinds: 'any',
  list: (models) => ({ object: 'list' as const, data: models.map(openaiModel) }),
  get: openaiModel,
  idOf: (id) => id,
  notFound: (m) => `The model '${m}' does not exist or you do not have access to it.`,
};
