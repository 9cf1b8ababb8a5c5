import type { RelayTarget } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';
import { bodyModelAndStream, bodyObject, type RoutingFields } from '../shared/routing-fields.ts';
import { hideUsageChunks } from './hide-usage-chunks.ts';

/** Chat Completions needs no state kept by polygate: every request may be relayed. */
export const peekChatRequest = (body: unknown): RoutingFields => ({
  ...bodyModelAndStream(bodyObject(body)),
  relayable: true,
});

/**
 * Same-format pass-through: base_url ends in /v1, so the path is relative to it. A stream reports
 * usage only when asked (`stream_options.include_usage`), and an unbilled stream is a money leak:
 * the relay always asks, and takes the usage chunk (and the `usage: null` it puts on every chunk)
 * out of the stream of a client that did not (https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options).
 * The API refuses `stream_options` without `stream: true`, so a non-streamed body is left alone
 * (its answer always carries usage).
 */
export const chatRelay: RelayTarget = (body, upstreamModel, stream) => {
  const options = isObject(body.stream_options) ? body.stream_options : undefined;
  if (!stream || options?.include_usage === true)
    return { path: '/chat/completions', body: { ...body, model: upstreamModel } };
  return {
    path: '/chat/completions',
    body: { ...body, model: upstreamModel, stream_options: { ...options, include_usage: true } },
    clientStream: hideUsageChunks,
  };
};
