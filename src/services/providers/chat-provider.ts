import type { ChatRequest } from '../../ir/chat-request.ts';
import type { ChatResult } from '../../ir/chat-result.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import type { ChatFormat, WarningSink } from '../../../adapters/shared/chat-adapter.ts';
import type { RouteTimeouts } from '../../infra/config/route-policy.ts';
import type { UpstreamTracer } from '../../infra/tracing/upstream-span.ts';

export type CallOptions = {
  signal: AbortSignal;
  warn: WarningSink;
  /** The route's timeouts (src/infra/config/route-policy.ts); the provider's defaults when absent. */
  timeouts?: RouteTimeouts;
  /** The request's trace: a span per upstream call, and its traceparent sent upstream. */
  trace?: UpstreamTracer;
};

/**
 * A chat upstream. Both calls reject with a GatewayError before anything reaches the client when
 * the upstream fails to answer, so the router can still try the next route; `openStream` resolves
 * only once the upstream accepted the request (2xx headers).
 */
export interface ChatProvider {
  readonly name: string;
  readonly type: string;
  /** The wire format this provider speaks over HTTP, for same-format pass-through; none for built-ins. */
  readonly wireFormat: ChatFormat | undefined;
  complete(request: ChatRequest, upstreamModel: string, opts: CallOptions): Promise<ChatResult>;
  openStream(request: ChatRequest, upstreamModel: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>>;
}
