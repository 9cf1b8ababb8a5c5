import type { RelayTarget } from '../shared/chat-adapter.ts';

/**
 * Same-format pass-through: the client's body goes to {base_url}/responses (base_url ends in /v1)
 * with only the model renamed (https://platform.openai.com/docs/api-reference/responses/create).
 * The pipeline relays only requests that need no state kept by polygate (`store: false`, no
 * previous_response_id, no item_reference), so the body's own `store` is already right.
 */
export const responsesRelay: RelayTarget = (body, upstreamModel) => ({ path: '/responses', body: { ...body, model: upstreamModel } });
