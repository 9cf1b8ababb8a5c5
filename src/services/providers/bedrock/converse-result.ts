// A Bedrock Converse answer → IR ChatResult; its stop reasons and usage, which ConverseStream shares.
import type { Part } from '../../../ir/chat-request.ts';
import type { ChatFinish, ChatResult, Usage } from '../../../ir/chat-result.ts';
import { GatewayError } from '../../../ir/gateway-error.ts';
import { decodeReasoningBlock } from './converse-reasoning.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

export function decodeConverseResult(body: unknown, model: string): ChatResult {
  const message = isObject(body) && isObject(body.output) ? body.output.message : undefined;
  if (!isObject(body) || !isObject(message) || !Array.isArray(message.content))
    throw new GatewayError('upstream', 'bedrock upstream answered a Converse body without output.message.content');
  const parts = message.content.flatMap(decodeBlock);
  return {
    id: '',
    model,
    parts,
    finish: finishOfConverse(typeof body.stopReason === 'string' ? body.stopReason : ''),
    usage: usageOfConverse(body.usage),
  };
}

function decodeBlock(b: unknown): Part[] {
  if (!isObject(b)) return [];
  if (typeof b.text === 'string') return b.text === '' ? [] : [{ type: 'text', text: b.text }];
  if (isObject(b.toolUse)) {
    const u = b.toolUse;
    return [
      {
        type: 'tool-call',
        id: typeof u.toolUseId === 'string' ? u.toolUseId : '',
        name: typeof u.name === 'string' ? u.name : '',
        args: JSON.stringify(u.input ?? {}),
      },
    ];
  }
  if (isObject(b.reasoningContent)) return decodeReasoningBlock(b.reasoningContent);
  return [];
}

/** Converse's stop reasons (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html). */
export function finishOfConverse(raw: string): ChatFinish {
  switch (raw) {
    case 'end_turn':
      return { reason: 'stop', raw };
    case 'tool_use':
      return { reason: 'tool-calls', raw };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { reason: 'length', raw };
    case 'stop_sequence':
      return { reason: 'stop-sequence', raw };
    case 'guardrail_intervened':
    case 'content_filtered':
      return { reason: 'content-filter', raw };
    default:
      return { reason: 'other', raw };
  }
}

/** Converse's inputTokens leave out cached tokens; the IR's count the whole prompt. */
export function usageOfConverse(v: unknown): Usage {
  if (!isObject(v)) return { inputTokens: 0, outputTokens: 0 };
  const read = count(v.cacheReadInputTokens);
  const write = count(v.cacheWriteInputTokens);
  const usage: Usage = { inputTokens: count(v.inputTokens) + read + write, outputTokens: count(v.outputTokens) };
  if (read > 0) usage.cacheReadTokens = read;
  if (write > 0) usage.cacheWriteTokens = write;
  return usage;
}
