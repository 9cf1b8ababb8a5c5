// The `gemini` adapter: Google Gemini generateContent / streamGenerateContent wire format, for
// clients of polygate (family C, `/v1beta/models/{model}:generateContent`) and for Gemini
// upstreams (https://ai.google.dev/api/generate-content).
import type { ChatClientCodec, ChatUpstreamCodec } from '../shared/chat-adapter.ts';
import { decodeGeminiRequest } from './decode-gemini-request.ts';
import { peekGeminiRequest } from './gemini-relay.ts';
import { decodeGeminiUpstreamResult } from './decode-gemini-upstream-result.ts';
import { encodeGeminiResult } from './encode-gemini-result.ts';
import { encodeGeminiUpstreamRequest } from './encode-gemini-upstream-request.ts';
import { decodeGeminiUpstreamError, encodeGeminiError } from './gemini-error.ts';
import { GeminiStreamDecoder } from './gemini-stream-decoder.ts';
import { GeminiStreamEncoder } from './gemini-stream-encoder.ts';

export const geminiClientCodec: ChatClientCodec = {
  format: 'gemini',
  peekRequest: peekGeminiRequest,
  decodeRequest: decodeGeminiRequest,
  encodeResult: encodeGeminiResult,
  createStreamEncoder: (request) => new GeminiStreamEncoder(request),
  encodeError: encodeGeminiError,
};

export const geminiUpstreamCodec: ChatUpstreamCodec = {
  format: 'gemini',
  hostedTools: new Set(['web-search', 'code-execution']),
  encodeRequest: encodeGeminiUpstreamRequest,
  decodeResult: decodeGeminiUpstreamResult,
  createStreamDecoder: () => new GeminiStreamDecoder(),
  decodeError: decodeGeminiUpstreamError,
};

export { decodeGeminiStreamError, decodeGeminiUpstreamError, encodeGeminiError } from './gemini-error.ts';
