// IR stream events as the adapter tests write them: one call a part instead of its start, deltas
// and end spelled out, so a test reads as the parts a stream carries and where it differs.
import type { FinishReason, Usage } from '../../src/ir/chat-result.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import type { ReasoningOrigin } from '../../src/ir/wire-format.ts';

/** A text part: its start, one delta a string, its end. */
export const textPart = (index: number, ...deltas: string[]): StreamEvent[] => [
  { type: 'text-start', index },
  ...deltas.map((text): StreamEvent => ({ type: 'text-delta', index, text })),
  { type: 'text-end', index },
];

/** A tool call's input: its start, one delta a piece of JSON, its end. */
export const toolInputPart = (index: number, id: string, name: string, ...json: string[]): StreamEvent[] => [
  { type: 'tool-input-start', index, id, name },
  ...json.map((piece): StreamEvent => ({ type: 'tool-input-delta', index, json: piece })),
  { type: 'tool-input-end', index },
];

export type ReasoningOptions = {
  deltas?: string[];
  signature?: string;
  /** The signature comes right after the start (OpenAI Responses: the item id), not after the deltas. */
  signedFirst?: boolean;
  encrypted?: string;
  redacted?: string;
};

/** A reasoning part: start, deltas, signature (after the deltas unless `signedFirst`), end. */
export function reasoningPart(index: number, origin: ReasoningOrigin, o: ReasoningOptions = {}): StreamEvent[] {
  const signature: StreamEvent[] =
    o.signature === undefined ? [] : [{ type: 'reasoning-signature', index, signature: o.signature }];
  const deltas = (o.deltas ?? []).map((text): StreamEvent => ({ type: 'reasoning-delta', index, text }));
  return [
    o.redacted === undefined
      ? { type: 'reasoning-start', index, origin }
      : { type: 'reasoning-start', index, redacted: o.redacted, origin },
    ...(o.signedFirst ? [...signature, ...deltas] : [...deltas, ...signature]),
    o.encrypted === undefined
      ? { type: 'reasoning-end', index }
      : { type: 'reasoning-end', index, encrypted: o.encrypted },
  ];
}

/** The closing event: the unified reason, the upstream's own word, the usage. */
export const finishEvent = (reason: FinishReason, raw: string, usage: Usage): StreamEvent => ({
  type: 'finish',
  finish: { reason, raw },
  usage,
});
