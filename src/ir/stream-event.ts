import type { Citation, HostedCallPart, HostedResultPart } from './chat-request.ts';
import type { ChatFinish, SafetyRating, Usage } from './chat-result.ts';
import type { GatewayError } from './gateway-error.ts';
import type { ReasoningOrigin } from './wire-format.ts';

/**
 * A chat stream as a lifecycle of parts. Every part opens with `*-start`, carries deltas and
 * closes with `*-end`; `index` numbers the parts of one stream from 0 in the order they opened,
 * so an encoder can map them 1:1 onto content-block / output-item / choice indices.
 */
export type StreamEvent =
  | { type: 'start'; id: string; model: string; usage?: Partial<Usage> }
  | { type: 'text-start'; index: number }
  | { type: 'text-delta'; index: number; text: string }
  | { type: 'text-end'; index: number }
  /** A source the text at `index` cites; comes before its `text-end`. */
  | { type: 'text-citation'; index: number; citation: Citation }
  /** `origin` names the upstream format whose signature / encrypted content this reasoning carries. */
  | { type: 'reasoning-start'; index: number; redacted?: string; origin: ReasoningOrigin }
  | { type: 'reasoning-delta'; index: number; text: string }
  | { type: 'reasoning-signature'; index: number; signature: string }
  | { type: 'reasoning-end'; index: number; encrypted?: string }
  | { type: 'tool-input-start'; index: number; id: string; name: string }
  | { type: 'tool-input-delta'; index: number; json: string }
  | { type: 'tool-input-end'; index: number }
  | { type: 'refusal-delta'; index: number; text: string }
  /** A hosted tool run (whole: its input is known before it runs), then its result, each a part of its own. */
  | { type: 'hosted-call'; index: number; part: HostedCallPart }
  | { type: 'hosted-result'; index: number; part: HostedResultPart }
  | { type: 'usage'; usage: Partial<Usage> }
  | { type: 'finish'; finish: ChatFinish; usage: Usage; safety?: SafetyRating[]; promptBlocked?: { reason: string } }
  | { type: 'error'; error: GatewayError };

export type StreamEventType = StreamEvent['type'];

/** Makes a switch over a union exhaustive: a new variant fails the type check here. */
export function assertNever(x: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(x)}`);
}
