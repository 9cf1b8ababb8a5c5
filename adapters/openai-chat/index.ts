// The `openai-chat` adapter: OpenAI Chat Completions in both directions — as polygate's
// /v1/chat/completions for clients, and as the wire format of Chat Completions upstreams
// (https://platform.openai.com/docs/api-reference/chat).
import { chatFormat } from '../shared/chat-format.ts';
import { decodeChatUpstreamError, encodeChatError } from './chat-error.ts';
import { ChatStreamDecoder } from './chat-stream-decoder.ts';
import { ChatStreamEncoder } from './chat-stream-encoder.ts';
import { peekChatRequest, chatRelay } from './chat-relay.ts';
import { decodeChatRequest } from './decode-chat-request.ts';
import { decodeChatUpstreamResult } from './decode-chat-upstream-result.ts';
import { encodeChatResult } from './encode-chat-result.ts';
import { encodeChatUpstreamRequest } from './encode-chat-upstream-request.ts';
import { bearerAuth, bearerCredential } from '../shared/format-module.ts';
import { openaiModels } from './openai-models.ts';

export { ChatStreamDecoder, ChatStreamEncoder };

/**
 * The Chat Completions format (docs/architecture.md, "The format module"). Its error shape is also
 * the answer on paths no format claims.
 */
export const openaiChat = chatFormat({
  name: 'openai-chat',
  metricLabel: 'chat',
  // `/v1/models` without another format's marks is OpenAI's model list.
  paths: [{ prefix: '/v1/chat/' }, { prefix: '/v1/models' }],
  routes: [
    { method: 'POST', path: '/v1/chat/completions', kind: 'chat' },
    { method: 'GET', path: '/v1/models', kind: 'model-list' },
    { method: 'GET', path: '/v1/models/:model', kind: 'model-get' },
  ],
  ...bearerCredential,
  // ChatCompletionCreateParams in node_modules/openai/resources/chat/completions/completions.d.ts.
  knownFields: [
    'model',
    'messages',
    'audio',
    'frequency_penalty',
    'function_call',
    'functions',
    'logit_bias',
    'logprobs',
    'max_completion_tokens',
    'max_tokens',
    'metadata',
    'modalities',
    'n',
    'parallel_tool_calls',
    'prediction',
    'presence_penalty',
    'prompt_cache_key',
    'prompt_cache_retention',
    'reasoning_effort',
    'response_format',
    'safety_identifier',
    'seed',
    'service_tier',
    'stop',
    'store',
    'stream',
    'stream_options',
    'temperature',
    'tool_choice',
    'tools',
    'top_logprobs',
    'top_p',
    'user',
    'verbosity',
    'web_search_options',
  ],
  // `api: responses` selects the Responses format (adapters/openai-responses/index.ts).
  // Azure OpenAI speaks it under its own paths and key header (src/services/providers/azure-openai.ts).
  providers: [
    { type: 'openai', api: [undefined, 'chat_completions'] },
    { type: 'azure-openai', api: [undefined, 'chat_completions'] },
  ],
  client: {
    peekRequest: peekChatRequest,
    decodeRequest: decodeChatRequest,
    encodeResult: encodeChatResult,
    createStreamEncoder: (request) => new ChatStreamEncoder(request),
    encodeError: encodeChatError,
  },
  models: openaiModels,
  upstream: {
    codec: {
      // Chat Completions runs no tools itself.
      hostedTools: new Set(),
      encodeRequest: encodeChatUpstreamRequest,
      decodeResult: decodeChatUpstreamResult,
      createStreamDecoder: () => new ChatStreamDecoder(),
      decodeError: decodeChatUpstreamError,
    },
    relay: chatRelay,
    authHeaders: bearerAuth,
  },
});

export const openaiChatClientCodec = openaiChat.client;
export const openaiChatUpstreamCodec = openaiChat.upstream.codec;
