import type { RelayTarget } from '../shared/chat-adapter.ts';

/**
 * Same-format pass-through: Gemini names the model in the path, not the body, and chooses
 * streaming by the method (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent).
 */
export const geminiRelay: RelayTarget = (body, upstreamModel, stream) => ({
  path: `/v1beta/models/${encodeURIComponent(upstreamModel.replace(/^models\//, ''))}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  body,
});
