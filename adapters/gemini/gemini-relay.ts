import type { InboundContext, RelayTarget } from '../shared/chat-adapter.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import { bodyObject, type RoutingFields } from '../shared/routing-fields.ts';

/** The model is in the path and streaming is the method's; Gemini needs no state kept by polygate. */
export function peekGeminiRequest(body: unknown, ctx: InboundContext): RoutingFields {
  bodyObject(body);
  return { model: modelOfPath(ctx), stream: ctx.streamByRoute === true, relayable: true };
}

/** The model the path names (`models/` dropped), checked; a 400 naming `model` when there is none. */
export function modelOfPath(ctx: InboundContext): string {
  const named = ctx.params.model ?? '';
  const model = named.startsWith('models/') ? named.slice(7) : named;
  if (model === '')
    throw invalid('model', 'model: the path must name a model (/v1beta/models/{model}:generateContent)');
  checkModelName(model);
  return model;
}

/**
 * Same-format pass-through: Gemini names the model in the path, not the body, and chooses
 * streaming by the method (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent).
 */
export const geminiRelay: RelayTarget = (body, upstreamModel, stream) => ({
  path: `/v1beta/models/${encodeURIComponent(upstreamModel.replace(/^models\//, ''))}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  body,
});
