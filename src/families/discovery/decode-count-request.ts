import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import type { CountClient } from '../../../adapters/shared/format-module.ts';
import type { ChatFormatModule } from '../../infra/formats/formats.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';

/**
 * Decodes a count body with the format's own request decoder, so every field rule of the
 * generate endpoint applies. Count bodies carry no output limit: the decoder gets a stand-in and
 * the request keeps none, so no upstream is told one.
 */
export function decodeCountRequest(format: CountingFormat, raw: unknown, inbound: InboundContext): ChatRequest {
  const generate = format.countClient.generateBody(raw);
  const stub = format.countClient.stubsMaxTokens === true && generate.max_tokens === undefined;
  const request = format.client.decodeRequest(stub ? { ...generate, max_tokens: 1_000_000_000 } : generate, inbound);
  if (stub) delete request.maxTokens;
  request.stream = false;
  return request;
}

/** A format whose clients count tokens (its module has a `countClient`). */
export type CountingFormat = ChatFormatModule & { readonly countClient: CountClient };
