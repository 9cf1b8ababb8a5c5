// The `anthropic-messages` wire format (spec family E; https://docs.anthropic.com/en/api/messages)
// in both directions: clients of polygate speaking Messages, and Messages-speaking upstreams.
import type { ChatClientCodec, ChatUpstreamCodec } from '../shared/chat-adapter.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { decodeMessagesUpstreamResult } from './decode-messages-upstream-result.ts';
import { encodeMessagesResult } from './encode-messages-result.ts';
import { encodeMessagesUpstreamRequest } from './encode-messages-upstream-request.ts';
import { decodeMessagesError, encodeMessagesError } from './messages-error.ts';
import { MessagesStreamDecoder } from './messages-stream-decoder.ts';
import { MessagesStreamEncoder } from './messages-stream-encoder.ts';
import { peekMessagesRequest } from './messages-relay.ts';

export const anthropicClientCodec: ChatClientCodec = {
  format: 'anthropic-messages',
  peekRequest: peekMessagesRequest,
  decodeRequest: decodeMessagesRequest,
  encodeResult: encodeMessagesResult,
  createStreamEncoder: (request) => new MessagesStreamEncoder(request),
  encodeError: encodeMessagesError,
};

export const anthropicUpstreamCodec: ChatUpstreamCodec = {
  format: 'anthropic-messages',
  hostedTools: new Set(['web-search', 'computer-use', 'bash', 'text-editor', 'code-execution']),
  encodeRequest: encodeMessagesUpstreamRequest,
  decodeResult: decodeMessagesUpstreamResult,
  createStreamDecoder: () => new MessagesStreamDecoder(),
  decodeError: decodeMessagesError,
};
