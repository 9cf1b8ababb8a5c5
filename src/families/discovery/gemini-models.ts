import { GatewayError } from '../../ir/gateway-error.ts';
import type { CatalogModel } from './model-catalog.ts';

/**
 * Gemini's Model resource (https://ai.google.dev/api/models#Model; @google/genai reads
 * `supportedGenerationMethods` as `supportedActions`). Token limits only when the config sets them.
 */
export const geminiModel = (m: CatalogModel) => ({
  name: `models/${m.id}`,
  baseModelId: m.id,
  version: '001',
  displayName: m.config.display_name ?? m.id,
  description: m.config.description ?? '',
  ...(m.config.context_window !== undefined ? { inputTokenLimit: m.config.context_window } : {}),
  ...(m.config.max_output_tokens !== undefined ? { outputTokenLimit: m.config.max_output_tokens } : {}),
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
});

const token = (id: string): string => Buffer.from(id).toString('base64url');

/** `GET /v1beta/models`: `pageSize` (default 50, at most 1000) models after the model `pageToken` names. */
export function geminiModelList(models: CatalogModel[], q: Record<string, unknown>) {
  const size = q.pageSize === undefined ? 50 : Number(q.pageSize);
  if (!Number.isInteger(size) || size < 1) throw new GatewayError('invalid-request', 'pageSize: must be a positive integer', { param: 'pageSize' });
  let start = 0;
  if (typeof q.pageToken === 'string' && q.pageToken !== '') {
    start = models.findIndex((m) => token(m.id) === q.pageToken);
    if (start < 0) throw new GatewayError('invalid-request', 'pageToken: not a token this list gave out', { param: 'pageToken' });
  }
  const page = models.slice(start, start + Math.min(size, 1000));
  const next = models[start + page.length];
  return { models: page.map(geminiModel), ...(next ? { nextPageToken: token(next.id) } : {}) };
}
