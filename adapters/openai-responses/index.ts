// The `openai-responses` adapter: the OpenAI Responses API wire format in every direction
// (https://platform.openai.com/docs/api-reference/responses). Clients of polygate speak it to
// POST /v1/responses; polygate speaks it to upstreams configured with `api: responses`.
import type { ChatClientCodec, ChatUpstreamCodec } from '../shared/chat-adapter.ts';
import { decodeResponseObject } from './decode-response-object.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponseObject } from './encode-response-object.ts';
import { encodeResponsesRequest } from './encode-responses-request.ts';
import { decodeResponsesUpstreamError, encodeResponsesError } from './responses-error.ts';
import { peekResponsesRequest } from './responses-relay.ts';
import { randomIds, type IdSource } from './responses-ids.ts';
import { ResponsesStreamDecoder } from './responses-stream-decoder.ts';
import { ResponsesStreamEncoder } from './responses-stream-encoder.ts';

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

export const responsesClientCodec: ChatClientCodec = createResponsesClientCodec();

export const responsesUpstreamCodec: ChatUpstreamCodec = {
  format: 'openai-responses',
  // computer-use: a Responses client's own `computer_use_preview` goes back as it came.
  hostedTools: new Set(['web-search', 'code-execution', 'file-search', 'computer-use']),
  encodeRequest: encodeResponsesRequest,
  decodeResult: decodeResponseObject,
  createStreamDecoder: () => new ResponsesStreamDecoder(),
  decodeError: decodeResponsesUpstreamError,
};
