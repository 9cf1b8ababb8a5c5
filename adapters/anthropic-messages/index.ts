// The `anthropic-messages` wire format (https://docs.anthropic.com/en/api/messages)
// in both directions: clients of polygate speaking Messages, and Messages-speaking upstreams.
import { chatFormat } from '../shared/chat-format.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { decodeMessagesUpstreamResult } from './decode-messages-upstream-result.ts';
import { encodeMessagesResult } from './encode-messages-result.ts';
import { encodeMessagesUpstreamRequest } from './encode-messages-upstream-request.ts';
import { decodeMessagesError, encodeMessagesError } from './messages-error.ts';
import { MessagesStreamDecoder } from './messages-stream-decoder.ts';
import { MessagesStreamEncoder } from './messages-stream-encoder.ts';
import { peekMessagesRequest, messagesRelay } from './messages-relay.ts';
import { bearerToken, headerValue } from '../shared/format-module.ts';
import { messagesCountClient, messagesCountWire } from './messages-count.ts';
import { anthropicModels } from './anthropic-models.ts';

/** The Messages format (docs/architecture.md, "The format module"). */
export const anthropicMessages = chatFormat({
  name: 'anthropic-messages',
  // The `family` label dashboards query (grafana/dashboards/).
  metricLabel: 'messages',
  paths: [
    { prefix: '/v1/messages' },
    { prefix: '/v1/models', when: (headers) => headers['anthropic-version'] !== undefined },
  ],
  routes: [
    { method: 'POST', path: '/v1/messages', kind: 'chat' },
    { method: 'POST', path: '/v1/messages/count_tokens', kind: 'count-tokens' },
    // Shared with OpenAI and Gemini clients: `anthropic-version` makes the request this format's (`paths`).
    { method: 'GET', path: '/v1/models', kind: 'model-list' },
    { method: 'GET', path: '/v1/models/:model', kind: 'model-get' },
  ],
  // The current Anthropic SDK sends `Authorization: Bearer`, older clients `x-api-key`.
  credential: (headers) => headerValue(headers, 'x-api-key') ?? bearerToken(headers),
  credentialHeaders: ['x-api-key', 'authorization'],
  // MessageCreateParams in node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts.
  knownFields: [
    'model',
    'messages',
    'max_tokens',
    'container',
    'context_management',
    'mcp_servers',
    'metadata',
    'service_tier',
    'stop_sequences',
    'stream',
    'system',
    'temperature',
    'thinking',
    'tool_choice',
    'tools',
    'top_k',
    'top_p',
    'output_config',
    'output_format',
    'inference_geo',
    'speed',
    'diagnostics',
    'user_profile_id',
  ],
  // Claude on Bedrock takes the Messages body in Bedrock's envelope (src/services/providers/bedrock/).
  providers: [{ type: 'anthropic' }, { type: 'bedrock' }],
  client: {
    peekRequest: peekMessagesRequest,
    decodeRequest: decodeMessagesRequest,
    encodeResult: encodeMessagesResult,
    createStreamEncoder: (request) => new MessagesStreamEncoder(request),
    encodeError: encodeMessagesError,
  },
  countClient: messagesCountClient,
  models: anthropicModels,
  upstream: {
    codec: {
      hostedTools: new Set(['web-search', 'computer-use', 'bash', 'text-editor', 'code-execution']),
      encodeRequest: encodeMessagesUpstreamRequest,
      decodeResult: decodeMessagesUpstreamResult,
      createStreamDecoder: () => new MessagesStreamDecoder(),
      decodeError: decodeMessagesError,
    },
    relay: messagesRelay,
    authHeaders: (key) => ({ 'x-api-key': key }),
    countWire: messagesCountWire,
  },
});

export const anthropicClientCodec = anthropicMessages.client;
export const anthropicUpstreamCodec = anthropicMessages.upstream.codec;
