import type { RelayTarget } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';
import { bodyModelAndStream, bodyObject, type RoutingFields } from '../shared/routing-fields.ts';

/** An input item that names a stored item by id: `type: item_reference`, or an id alone (no type, no role). */
export const isItemReference = (item: unknown): boolean =>
  isObject(item) &&
  (item.type === 'item_reference' ||
    (item.type === undefined && item.role === undefined && typeof item.id === 'string'));

/**
 * Relayable only when polygate keeps no state for it: `store: false` (the default stores the
 * answer in polygate), no `previous_response_id`, no item references.
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
 * The pipeline relays only requests that need no state kept by polygate (`store: false`, no
 * previous_response_id, no item_reference), so the body's own `store` is already right.
 */
export const responsesRelay: RelayTarget = (body, upstreamModel) => ({
  path: '/responses',
  body: { ...body, model: upstreamModel },
});
