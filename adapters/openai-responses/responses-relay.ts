import type { RelayTarget } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';
import { bodyModelAndStream, bodyObject, type RoutingFields } from '../shared/routing-fields.ts';

/** An input item that names a stored item by id: `type: item_reference`, or an id alone (no type, no role). */
export const isItemReference = (item: unknown): boolean =>
  isObject(item) &&
  (item.type === 'item_reference' ||
    (item.type === undefined && item.role === undefined && typeof item.id === 'string'));

/**
 * Relayable without a session only when polygate keeps no state for it: `store: false` (the
 * default stores the answer in polygate), no `previous_response_id`, no item references. A stored
 * request is relayed through its session instead (ChatSession.keepsEveryTurn).
 */
export function peekResponsesRequest(body: unknown): RoutingFields {
  const b = bodyObject(body);
  const previous = b.previous_response_id !== undefined && b.previous_response_id !== null;
  const references = Array.isArray(b.input) && b.input.some(isItemReference);
  return { ...bodyModelAndStream(b), relayable: b.store === false && !previous && !references };
}

/**
 * Same-format pass-through: the client's body goes to {base_url}/responses (base_url ends in /v1)
 * with only the model renamed (https://platform.openai.com/docs/api-reference/responses/create).
 * Without state (`store: false`, no previous_response_id, no item_reference) the pipeline relays
 * on `relayable`; a request polygate keeps state for is relayed only with the body its session
 * gives (src/services/sessions/responses-session.ts `relayBody`: a stored request as sent, issue #29).
 * The body's own `store` goes along either way.
 */
export const responsesRelay: RelayTarget = (body, upstreamModel) => ({
  path: '/responses',
  body: { ...body, model: upstreamModel },
});
