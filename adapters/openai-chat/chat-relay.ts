import type { RelayTarget } from '../shared/chat-adapter.ts';
import { bodyModelAndStream, bodyObject, type RoutingFields } from '../shared/routing-fields.ts';

/** Chat Completions needs no state kept by polygate: every request may be relayed. */
export const peekChatRequest = (body: unknown): RoutingFields => ({
  ...bodyModelAndStream(bodyObject(body)),
  relayable: true,
});

/** Same-format pass-through: base_url ends in /v1, so the path is relative to it. */
export const chatRelay: RelayTarget = (body, upstreamModel) => ({
  path: '/chat/completions',
  body: { ...body, model: upstreamModel },
});
