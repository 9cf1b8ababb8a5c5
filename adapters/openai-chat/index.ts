// The `openai-chat` adapter: OpenAI Chat Completions in both directions — as polygate's
// /v1/chat/completions for clients, and as the wire format of Chat Completions upstreams
// (https://platform.openai.com/docs/api-reference/chat).
import type { ChatClientCodec, ChatUpstreamCodec } from '../shared/chat-adapter.ts';
import { decodeChatUpstreamError, encodeChatError } from './chat-error.ts';
import { ChatStreamDecoder } from './chat-stream-decoder.ts';
import { ChatStreamEncoder } from './chat-stream-encoder.ts';
import { peekChatRequest } from './chat-relay.ts';
import { decodeChatRequest } from './decode-chat-request.ts';
import { decodeChatUpstreamResult } from './decode-chat-upstream-result.ts';
import { encodeChatResult } from './encode-chat-result.ts';
import { encodeChatUpstreamRequest } from './encode-chat-upstream-request.ts';

export const openaiChatUpstreamCodec: ChatUpstreamCodec = {
  format: 'openai-chat',
  // Chat Completions runs no tools itself.
  hostedTools: new Set(),
  encodeRequest: encodeChatUpstreamRequest,
  decodeResult: decodeChatUpstreamResult,
  createStreamDecoder: () => new ChatStreamDecoder(),
  decodeError: decodeChatUpstreamError,
};

export const openaiChatClientCodec: ChatClientCodec = {
  format: 'openai-chat',
  peekRequest: peekChatRequest,
  decodeRequest: decodeChatRequest,
  encodeResult: encodeChatResult,
  createStreamEncoder: (request) => new ChatStreamEncoder(request),
  encodeError: encodeChatError,
};

export { ChatStreamDecoder, ChatStreamEncoder };
