// A provider that counts tokens through an API of its own rather than a wire format's count route
// (Bedrock's CountTokens; docs/discovery.md): the count-tokens handler asks it before estimating.
import type { Json } from '../../../adapters/shared/narrow.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';
import type { CallOptions, ChatProvider } from './chat-provider.ts';

export type CountCall = {
  /** The decoded request, for a translated count. */
  request: ChatRequest;
  /** The client's body when it may be relayed as it came, with the format it is in. */
  raw?: { format: string; body: Json; headers: Record<string, string | string[] | undefined> };
  upstreamModel: string;
};

export interface TokenCounter {
  /** The upstream's count; rejects with a GatewayError when the upstream fails or refuses. */
  countTokens(call: CountCall, opts: CallOptions): Promise<number>;
}

export const isTokenCounter = (p: ChatProvider): p is ChatProvider & TokenCounter =>
  typeof (p as Partial<TokenCounter>).countTokens === 'function';
