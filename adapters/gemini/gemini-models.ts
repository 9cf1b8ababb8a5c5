// Gemini's model discovery (`GET /v1beta/models`, and `/v1/models` with Gemini's marks; docs/discovery.md).
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { ListedModel, ModelDiscovery, WireQuery } from '../shared/format-module.ts';

/**
 * Gemini's Model resource (https://ai.google.dev/api/models#Model; @google/genai reads
 * `supportedGenerationMethods` as `supportedActions`). Token limits only when the config sets them.
 */
export const geminiModel = (m: ListedModel) => ({
  name: `models/${m.id}`,
  baseModelId: m.id,
  version: '001',
  displayName: m.displayName ?? m.id,
  description: m.description ?? '',
  ...(m.contextWindow !== undefined ? { inputTokenLimit: m.contextWindow } : {}),
  ...(m.maxOutputTokens !== undefined ? { outputTokenLimit: m.maxOutputTokens } : {}),
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
});

const token = (id: string): string => Buffer.from(id).toString('base64url');

/** `pageSize` (default 50, at most 1000) models after the model `pageToken` names. */
export function geminiModelList(models: readonly ListedModel[], q: WireQuery) {
  const size = q.pageSize === undefined ? 50 : Number(q.pageSize);
  if (!Number.isInteger(size) || size < 1)
    throw new GatewayError('invalid-request', 'pageSize: must be a positive integer', { param: 'pageSize' });
  let start = 0;
  if (typeof q.pageToken === 'string' && q.pageToken !== '') {
    start = models.findIndex((m) => token(m.id) === q.pageToken);
    if (start < 0)
      throw new GatewayError('invalid-request', 'pageToken: not a token this list gave out', { param: 'pageToken' });
  }
  const page = models.slice(start, start + Math.min(size, 1000));
  const next = models[start + page.length];
  return { models: page.map(geminiModel), ...(next ? { nextPageToken: token(next.id) } : {}) };
}

/** Chat models only, paged; a model is named `models/{id}` in paths as in answers. */
export const geminiModels: ModelDiscovery = {
  kinds: 'chat',
  list: geminiModelList,
  get: geminiModel,
  idOf: (id) => id.replace(/^models\//, ''),
  notFound: (m) => `models/${m} is not found, or is not supported for generateContent.`,
};
