import type { RelayTarget } from '../shared/chat-adapter.ts';

/** Same-format pass-through: base_url ends in /v1, so the path is relative to it. */
export const chatRelay: RelayTarget = (body, upstreamModel) => ({ path: '/chat/completions', body: { ...body, model: upstreamModel } });
