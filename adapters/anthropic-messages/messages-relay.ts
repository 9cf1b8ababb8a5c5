import { invalid } from '../../src/ir/gateway-error.ts';
import type { InboundContext, RelayTarget } from '../shared/chat-adapter.ts';
import { bodyModelAndStream, bodyObject, type RoutingFields } from '../shared/routing-fields.ts';
import { checkVersion } from './messages-version.ts';

/** Messages needs no state kept by polygate: every request may be relayed. `anthropic-version` is required by the upstream too. */
export function peekMessagesRequest(body: unknown, ctx: InboundContext): RoutingFields {
  checkVersion(ctx.headers);
  const fields = bodyModelAndStream(bodyObject(body));
  // The spec's Limits table; the real API refuses a longer name as well.
  if (fields.model.length > 256)
    throw invalid('model', `model: must be 1 to 256 characters (got ${fields.model.length})`);
  return { ...fields, relayable: true };
}

/**
 * Same-format pass-through: the client's body goes to /v1/messages with only the model renamed;
 * `?beta=true` (the SDK's beta namespace, as Claude Code calls it) goes along.
 */
export const messagesRelay: RelayTarget = (body, upstreamModel, _stream, query) => ({
  path: query?.beta === 'true' ? '/v1/messages?beta=true' : '/v1/messages',
  body: { ...body, model: upstreamModel },
});
