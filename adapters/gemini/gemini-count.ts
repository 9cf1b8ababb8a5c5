// Token counting in the Gemini format: `{model}:countTokens` for clients and upstreams
// (https://ai.google.dev/api/tokens#method:-models.counttokens): `contents`, or a whole
// `generateContentRequest` (system instruction and tools count too) that names the model.
import { invalid } from '../../src/ir/gateway-error.ts';
import type { CountClient, CountWire } from '../shared/format-module.ts';
import { countBody, countIn } from '../shared/count-body.ts';
import { isObject } from '../shared/narrow.ts';

const countPath = (model: string): string =>
  `/v1beta/models/${encodeURIComponent(model.replace(/^models\//, ''))}:countTokens`;
const modelName = (model: string): string => `models/${model.replace(/^models\//, '')}`;

export const geminiCountWire: CountWire = {
  relay: (body, model) => ({
    path: countPath(model),
    body: isObject(body.generateContentRequest)
      ? { ...body, generateContentRequest: { ...body.generateContentRequest, model: modelName(model) } }
      : body,
  }),
  translate: (g, model) => ({
    path: countPath(model),
    body: { generateContentRequest: { model: modelName(model), ...(isObject(g.body) ? g.body : {}) } },
  }),
  read: (body) => countIn(body, 'totalTokens'),
  relayHeaders: [],
};

/** `POST /v1beta/models/{model}:countTokens` → `{totalTokens}`. */
export const geminiCountClient: CountClient = {
  generateBody: (raw) => {
    const b = countBody(raw);
    if (b.generateContentRequest !== undefined) {
      if (b.contents !== undefined)
        throw invalid('contents', 'contents: give either contents or generateContentRequest, not both');
      return countBody(b.generateContentRequest);
    }
    return { contents: b.contents };
  },
  encode: (tokens) => ({ totalTokens: tokens }),
};
