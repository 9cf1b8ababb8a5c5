// The `gemini` adapter: Google Gemini generateContent / streamGenerateContent wire format, for
// clients of polygate (`/v1beta/models/{model}:generateContent`) and for Gemini
// upstreams (https://ai.google.dev/api/generate-content).
import { chatFormat } from '../shared/chat-format.ts';
import { decodeGeminiRequest } from './decode-gemini-request.ts';
import { peekGeminiRequest, geminiRelay } from './gemini-relay.ts';
import { decodeGeminiUpstreamResult } from './decode-gemini-upstream-result.ts';
import { encodeGeminiResult } from './encode-gemini-result.ts';
import { encodeGeminiUpstreamRequest } from './encode-gemini-upstream-request.ts';
import { decodeGeminiUpstreamError, encodeGeminiError } from './gemini-error.ts';
import { GeminiStreamDecoder } from './gemini-stream-decoder.ts';
import { GeminiStreamEncoder } from './gemini-stream-encoder.ts';
import { headerValue, type RouteMethods } from '../shared/format-module.ts';
import { geminiCountClient, geminiCountWire } from './gemini-count.ts';
import { geminiModels } from './gemini-models.ts';

export { decodeGeminiStreamError, decodeGeminiUpstreamError, encodeGeminiError } from './gemini-error.ts';

const methods: RouteMethods = {
  generate: 'generateContent',
  stream: 'streamGenerateContent',
  count: 'countTokens',
  streamQuery: { param: 'alt', value: 'sse' },
};

/**
 * The Gemini format (docs/architecture.md, "The format module"). `/v1/models` is Gemini's when a
 * Gemini key comes with it or the path names a method (`{model}:generateContent`): @google/genai
 * calls `/v1` as well as `/v1beta`.
 */
export const gemini = chatFormat({
  name: 'gemini',
  metricLabel: 'gemini',
  paths: [
    { prefix: '/v1beta' },
    {
      prefix: '/v1/models',
      when: (headers, query, path) =>
        path.includes(':') || headers['x-goog-api-key'] !== undefined || query.key !== undefined,
    },
  ],
  // Current @google/genai versions call either prefix. Without alt=sse the real API streams one
  // JSON array at the end; every SDK asks for SSE, the only stream polygate serves.
  routes: ['/v1beta/models', '/v1/models'].flatMap(
    (prefix) =>
      [
        { method: 'POST', path: `${prefix}/:target`, kind: 'chat-methods', methods },
        { method: 'GET', path: prefix, kind: 'model-list' },
        { method: 'GET', path: `${prefix}/:model`, kind: 'model-get' },
      ] as const,
  ),
  // The Google GenAI SDK sends `x-goog-api-key`; REST examples use `?key=`.
  credential: (headers, query) =>
    headerValue(headers, 'x-goog-api-key') ?? (typeof query.key === 'string' ? query.key : undefined),
  credentialHeaders: ['x-goog-api-key'],
  // GenerateContentParameters in node_modules/@google/genai (REST names).
  knownFields: [
    'contents',
    'tools',
    'toolConfig',
    'systemInstruction',
    'generationConfig',
    'safetySettings',
    'cachedContent',
    'labels',
    'serviceTier',
    'store',
    'model',
  ],
  // Vertex AI serves Gemini models in this body (and Claude in Anthropic's: src/services/providers/vertex/).
  providers: [{ type: 'gemini' }, { type: 'vertex' }],
  client: {
    peekRequest: peekGeminiRequest,
    decodeRequest: decodeGeminiRequest,
    encodeResult: encodeGeminiResult,
    createStreamEncoder: (request) => new GeminiStreamEncoder(request),
    encodeError: encodeGeminiError,
  },
  countClient: geminiCountClient,
  models: geminiModels,
  upstream: {
    codec: {
      hostedTools: new Set(['web-search', 'code-execution']),
      encodeRequest: encodeGeminiUpstreamRequest,
      decodeResult: decodeGeminiUpstreamResult,
      createStreamDecoder: () => new GeminiStreamDecoder(),
      decodeError: decodeGeminiUpstreamError,
    },
    relay: geminiRelay,
    authHeaders: (key) => ({ 'x-goog-api-key': key }),
    countWire: geminiCountWire,
  },
});

export const geminiClientCodec = gemini.client;
export const geminiUpstreamCodec = gemini.upstream.codec;
