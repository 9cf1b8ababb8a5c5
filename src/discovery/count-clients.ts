import { anthropicClientCodec } from '../../adapters/anthropic-messages/index.ts';
import { geminiClientCodec } from '../../adapters/gemini/index.ts';
import { responsesClientCodec } from '../../adapters/openai-responses/index.ts';
import type { ChatClientCodec, InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { isObject, type Json } from '../../adapters/shared/narrow.ts';
import type { ChatRequest } from '../ir/chat-request.ts';
import { GatewayError } from '../ir/gateway-error.ts';

/** A family's token-counting endpoint: its body read as a generate request, and its answer. */
export type CountClient = {
  codec: ChatClientCodec;
  /** The count body as the family's generate body (what the decoder and a same-format relay take). */
  generateBody(body: unknown): Json;
  encode(tokens: number): Json;
  /** The generate decoder requires an output limit the count body does not carry (Anthropic's max_tokens). */
  stubsMaxTokens?: boolean;
};

const body = (v: unknown): Json => {
  if (!isObject(v)) throw new GatewayError('invalid-request', 'request body: expected a JSON object', { param: 'body' });
  return v;
};

/**
 * Decodes a count body with the family's own request decoder, so every field rule of the
 * generate endpoint applies. Count bodies carry no output limit: the decoder gets a stand-in and
 * the request keeps none, so no upstream is told one.
 */
export function decodeCountRequest(client: CountClient, raw: unknown, inbound: InboundContext): ChatRequest {
  const generate = client.generateBody(raw);
  const stub = client.stubsMaxTokens === true && generate.max_tokens === undefined;
  const request = client.codec.decodeRequest(stub ? { ...generate, max_tokens: 1_000_000_000 } : generate, inbound);
  if (stub) delete request.maxTokens;
  request.stream = false;
  return request;
}

/** `POST /v1/messages/count_tokens` → `{input_tokens}` (MessageTokensCount). */
export const anthropicCount: CountClient = {
  codec: anthropicClientCodec,
  generateBody: body,
  encode: (tokens) => ({ input_tokens: tokens }),
  stubsMaxTokens: true,
};

/**
 * `POST /v1beta/models/{model}:countTokens` → `{totalTokens}`. The body is `{contents}` or a
 * whole `generateContentRequest` (https://ai.google.dev/api/tokens#method:-models.counttokens).
 */
export const geminiCount: CountClient = {
  codec: geminiClientCodec,
  generateBody: (raw) => {
    const b = body(raw);
    if (b.generateContentRequest !== undefined) {
      if (b.contents !== undefined) throw new GatewayError('invalid-request', 'contents: give either contents or generateContentRequest, not both', { param: 'contents' });
      return body(b.generateContentRequest);
    }
    return { contents: b.contents };
  },
  encode: (tokens) => ({ totalTokens: tokens }),
};

/** `POST /v1/responses/input_tokens` → `{object: "response.input_tokens", input_tokens}`. */
export const responsesCount: CountClient = {
  codec: responsesClientCodec,
  generateBody: body,
  encode: (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }),
};
