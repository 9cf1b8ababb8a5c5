import type { SseFrame } from '../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest, Part } from '../../ir/chat-request.ts';
import type { ChatResult } from '../../ir/chat-result.ts';
import type { Route } from '../routing/model-router.ts';

/**
 * What a stateful format adds around the generic chat pipeline (`openai-responses` keeps conversations).
 * One session per request; every step is optional. The pipeline stays ignorant of what the state
 * is: it only calls these at the points where state can be read or written.
 */
export interface ChatSession {
  /**
   * The session must see every turn it serves (a Responses WebSocket remembers each one for the
   * next `previous_response_id`): the request is decoded first, and a same-format route relays
   * only the body `relayBody` gives, whose answer goes to `relayEnded`.
   */
  readonly keepsEveryTurn?: boolean;
  /**
   * After `prepareRequest`: the body to relay to a same-format route (e.g. the conversation's
   * wire items in front of the new input), or undefined when the route must translate.
   */
  relayBody?(route: Route, warn: (field: string, message: string) => void): Record<string, unknown> | undefined;
  /** A relayed stream ended; its frames went to `observeFrames` (a session that keeps every turn asks for streams only). */
  relayEnded?(done: { route: Route; status: number; outcome: 'ok' | 'client_closed' | 'upstream_cut' }): Promise<void>;
  /** Wire-level rewrite before decoding (e.g. resolving references to stored items). */
  prepareBody?(body: unknown): Promise<unknown>;
  /** After decoding, before routing (e.g. prepending a stored conversation, truncation). */
  prepareRequest?(request: ChatRequest): Promise<void>;
  /** The request as one route should see it (e.g. reasoning only for the provider that made it). */
  forRoute?(request: ChatRequest, route: Route, warn: (field: string, message: string) => void): ChatRequest;
  /** A non-streamed answer was sent as `body`. */
  completed?(done: { request: ChatRequest; route: Route; result: ChatResult; body: unknown }): Promise<void>;
  /** A relayed JSON (non-streamed) answer, parsed, before `relayEnded`. */
  observeJson?(body: unknown): void;
  /** Frames as they are written to a streaming client. */
  observeFrames?(frames: SseFrame[]): void;
  /** A stream ended: `parts` is what was streamed, `outcome` how it ended. */
  streamEnded?(done: {
    request: ChatRequest;
    route: Route;
    parts: Part[];
    outcome: 'ok' | 'error' | 'client_closed';
  }): Promise<void>;
}
