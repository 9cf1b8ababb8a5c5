import type { CatalogModel } from './model-catalog.ts';

/**
 * OpenAI's Model object (node_modules/openai/resources/models.d.ts). polygate knows no creation
 * date, so `created` is 0 (the epoch), as Anthropic's list does for unknown release dates.
 */
export const openaiModel = (m: CatalogModel) => ({ id: m.id, object: 'model' as const, created: 0, owned_by: m.ownedBy });

/** `GET /v1/models`: every model in one page, as OpenAI lists them. */
export const openaiModelList = (models: CatalogModel[]) => ({ object: 'list' as const, data: models.map(openaiModel) });
