import type { RelayTarget } from '../shared/chat-adapter.ts';

/** Same-format pass-through: base_url ends in /v1, so the path is relative to it. */
export const responsesRelay: RelayTarget = (body, upstreamModel) => ({ path: '/responses', body: { ...body, model: upstreamModel } });
