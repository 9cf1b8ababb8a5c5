import type { RelayTarget } from '../shared/chat-adapter.ts';

/** Same-format pass-through: the client's body goes to /v1/messages with only the model renamed. */
export const messagesRelay: RelayTarget = (body, upstreamModel) => ({ path: '/v1/messages', body: { ...body, model: upstreamModel } });
