// Gemini FinishReason / BlockReason ⇄ IR finish (https://ai.google.dev/api/generate-content#FinishReason).
// Safety-type stops must never look like a plain "stop": they become content-filter, and a
// malformed function call becomes error, with the Gemini word kept in `raw`.
import type { ChatFinish, FinishReason } from '../../src/ir/chat-result.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

const filterReasons = [
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
];
const errorReasons = [
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'MISSING_THOUGHT_SIGNATURE',
  'MALFORMED_RESPONSE',
];
const otherReasons = ['OTHER', 'LANGUAGE', 'FINISH_REASON_UNSPECIFIED', 'IMAGE_OTHER', 'NO_IMAGE'];
const blockReasons = ['BLOCK_REASON_UNSPECIFIED', 'SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'IMAGE_SAFETY'];

/** A Gemini finishReason as the IR's; STOP after a functionCall is the IR's tool-calls. */
export function finishOfGemini(raw: string, hasToolCall: boolean): ChatFinish {
  if (raw === 'STOP') return { reason: hasToolCall ? 'tool-calls' : 'stop', raw };
  if (raw === 'MAX_TOKENS') return { reason: 'length', raw };
  if (filterReasons.includes(raw)) return { reason: 'content-filter', raw };
  if (errorReasons.includes(raw)) return { reason: 'error', raw };
  return { reason: 'other', raw };
}

const isGeminiWord = (raw: string, words: string[]): boolean => words.includes(raw);

/** The IR finish as a Gemini finishReason; the raw word is reused when it is already Gemini's. */
export function geminiFinishReason(finish: ChatFinish): string {
  const reason: FinishReason = finish.reason;
  switch (reason) {
    case 'stop':
    case 'tool-calls':
    case 'stop-sequence':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return isGeminiWord(finish.raw, filterReasons) ? finish.raw : 'SAFETY';
    case 'refusal':
      return 'SAFETY';
    case 'error':
      return isGeminiWord(finish.raw, errorReasons) ? finish.raw : 'OTHER';
    case 'pause':
    case 'other':
      return isGeminiWord(finish.raw, otherReasons) ? finish.raw : 'OTHER';
    default:
      return assertNever(reason, 'finish reason');
  }
}

/** Gemini has no word for some IR finishes; `finishMessage` says what really happened. */
export function geminiFinishMessage(finish: ChatFinish): string | undefined {
  const wire = geminiFinishReason(finish);
  if (
    wire === finish.raw ||
    finish.reason === 'stop' ||
    finish.reason === 'length' ||
    finish.reason === 'tool-calls' ||
    finish.reason === 'stop-sequence'
  )
    return undefined;
  return `upstream finish reason: ${finish.raw || finish.reason}`;
}

/** A promptFeedback.blockReason for the client; foreign words become OTHER. */
export const geminiBlockReason = (reason: string): string => (blockReasons.includes(reason) ? reason : 'OTHER');
