// Anthropic `stop_reason` <-> IR FinishReason, following
// https://docs.anthropic.com/en/api/handling-stop-reasons
import type { ChatFinish, FinishReason } from '../../src/ir/chat-result.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

export const stopReasons = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const;
export type StopReason = (typeof stopReasons)[number];

const isStopReason = (v: string): v is StopReason => (stopReasons as readonly string[]).includes(v);

/** Upstream -> IR. Unknown future reasons become 'other' with the raw word kept. */
export function finishOfStopReason(raw: string | null | undefined, stopSequence?: string | null): ChatFinish {
  const word = raw ?? 'end_turn';
  return { reason: reasonOf(word), raw: word, stopSequence: stopSequence ?? null };
}

function reasonOf(word: string): FinishReason {
  if (!isStopReason(word)) return 'other';
  switch (word) {
    case 'end_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'stop_sequence':
      return 'stop-sequence';
    case 'tool_use':
      return 'tool-calls';
    case 'pause_turn':
      return 'pause';
    case 'refusal':
      return 'refusal';
    default:
      return assertNever(word, 'stop_reason');
  }
}

/**
 * IR -> client. When the raw word already is an Anthropic reason that means the same thing
 * (same-format relay), it is kept, so e.g. `model_context_window_exceeded` survives.
 */
export function stopReasonOf(finish: ChatFinish): StopReason {
  if (isStopReason(finish.raw) && reasonOf(finish.raw) === finish.reason) return finish.raw;
  switch (finish.reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'stop-sequence':
      return 'stop_sequence';
    case 'pause':
      return 'pause_turn';
    case 'refusal':
    case 'content-filter':
      return 'refusal';
    case 'error':
    case 'other':
      return 'end_turn';
    default:
      return assertNever(finish.reason, 'finish reason');
  }
}
