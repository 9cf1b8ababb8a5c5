// Chat Completions `finish_reason` ⇄ the IR's unified finish reason
// (https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices).
import type { ChatFinish, FinishReason } from '../../src/ir/chat-result.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

/** The values Chat Completions itself sends; `function_call` is the deprecated pre-`tools` word. */
const chatReasons = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;
export type ChatFinishReason = (typeof chatReasons)[number];

export function finishOfChatReason(raw: string | null | undefined): ChatFinish {
  switch (raw) {
    case 'stop':
      return { reason: 'stop', raw };
    case 'length':
      return { reason: 'length', raw };
    case 'tool_calls':
    case 'function_call':
      return { reason: 'tool-calls', raw };
    case 'content_filter':
      return { reason: 'content-filter', raw };
    default:
      // Compatible servers send their own words (`eos`, `abort`, …); keep them in `raw`.
      return { reason: 'other', raw: raw ?? '' };
  }
}

const isChatReason = (raw: string): raw is ChatFinishReason => (chatReasons as readonly string[]).includes(raw);

/** The word to show a Chat Completions client: the upstream's own when it already is one. */
export function chatReasonOfFinish(finish: ChatFinish): ChatFinishReason {
  if (isChatReason(finish.raw)) return finish.raw;
  return chatReasonOf(finish.reason);
}

function chatReasonOf(reason: FinishReason): ChatFinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    // Anthropic's `refusal` stop reason is its safety classifiers stopping the answer
    // (https://docs.anthropic.com/en/api/handling-stop-reasons#refusal): a content filter here.
    case 'content-filter':
    case 'refusal':
      return 'content_filter';
    // A matched stop sequence and an Anthropic `pause_turn` end with `stop`: the format has no
    // other word. (`error` never gets here: the encoders answer it as an error; see failedFinish.)
    case 'stop':
    case 'stop-sequence':
    case 'pause':
    case 'error':
    case 'other':
      return 'stop';
    default:
      return assertNever(reason, 'finish reason');
  }
}
