// The `openai-responses` adapter: the OpenAI Responses API wire format in every direction
// (https://platform.openai.com/docs/api-reference/responses). Clients of polygate speak it to
// POST /v1/responses; polygate speaks it to upstreams configured with `api: responses`.
import type { ChatClientCodec } from '../shared/chat-adapter.ts';
import { chatFormat } from '../shared/chat-format.ts';
import { decodeResponseObject } from './decode-response-object.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponseObject } from './encode-response-object.ts';
import { encodeResponsesRequest } from './encode-responses-request.ts';
import { decodeResponsesUpstreamError, encodeResponsesError } from './responses-error.ts';
import { isItemReference, peekResponsesRequest, responsesRelay } from './responses-relay.ts';
import { randomIds, type IdSource } from './responses-ids.ts';
import { ResponsesStreamDecoder } from './responses-stream-decoder.ts';
import { ResponsesStreamEncoder } from './responses-stream-encoder.ts';
import { bearerAuth, bearerCredential } from '../shared/format-module.ts';
import { responsesCountClient, responsesCountWire } from './responses-count.ts';

export type { IdSource } from './responses-ids.ts';
export { sequentialIds } from './responses-ids.ts';
export { ext as responsesExtensions, readItemReferenceSlots, type ItemReferenceSlot } from './responses-extensions.ts';

/** The client codec with an injectable id/clock source (golden tests use deterministic ids). */
export function createResponsesClientCodec(ids: IdSource = randomIds): ChatClientCodec {
  return {
    format: 'openai-responses',
    peekRequest: peekResponsesRequest,
    decodeRequest: decodeResponsesRequest,
    encodeResult: (result, request) => encodeResponseObject(result, request, ids),
    createStreamEncoder: (request) => new ResponsesStreamEncoder(request, ids),
    encodeError: encodeResponsesError,
  };
}

/** The Responses format (docs/architecture.md, "The format module"). */
export const openaiResponses = chatFormat({
  name: 'openai-responses',
  metricLabel: 'responses',
  paths: [{ prefix: '/v1/responses' }],
  routes: [
    { method: 'POST', path: '/v1/responses', kind: 'chat' },
    { method: 'POST', path: '/v1/responses/input_tokens', kind: 'count-tokens' },
    // The stored responses' endpoints the real API has (the spec leaves them "not shown").
    { method: 'GET', path: '/v1/responses/:id', kind: 'stored-response-get' },
    { method: 'DELETE', path: '/v1/responses/:id', kind: 'stored-response-delete' },
    { method: 'GET', path: '/v1/responses/:id/input_items', kind: 'stored-response-input-items' },
  ],
  ...bearerCredential,
  // ResponseCreateParams in node_modules/openai/resources/responses/responses.d.ts.
  knownFields: [
    'model',
    'input',
    'background',
    'conversation',
    'include',
    'instructions',
    'max_output_tokens',
    'max_tool_calls',
    'metadata',
    'parallel_tool_calls',
    'previous_response_id',
    'prompt',
    'prompt_cache_key',
    'prompt_cache_retention',
    'reasoning',
    'safety_identifier',
    'service_tier',
    'store',
    'stream',
    'stream_options',
    'temperature',
    'text',
    'tool_choice',
    'tools',
    'top_logprobs',
    'top_p',
    'truncation',
    'user',
    'context_management',
  ],
  providers: [
    { type: 'openai', api: ['responses'] },
    { type: 'azure-openai', api: ['responses'] },
  ],
  client: createResponsesClientCodec(),
  clientFor: createResponsesClientCodec,
  countClient: responsesCountClient,
  upstream: {
    codec: {
      // computer-use: a Responses client's own `computer_use_preview` goes back as it came.
      hostedTools: new Set(['web-search', 'code-execution', 'file-search', 'computer-use']),
      encodeRequest: encodeResponsesRequest,
      decodeResult: decodeResponseObject,
      createStreamDecoder: () => new ResponsesStreamDecoder(),
      decodeError: decodeResponsesUpstreamError,
    },
    relay: responsesRelay,
    authHeaders: bearerAuth,
    countWire: responsesCountWire,
  },
  // previous_response_id and item_reference: polygate keeps the conversation (src/services/sessions/).
  conversation: { isItemReference, decodeResponse: decodeResponseObject },
});

export const responsesClientCodec = openaiResponses.client;
export const responsesUpstreamCodec = openaiResponses.upstream.codec;
