// An upstream's Messages response -> IR result (https://docs.anthropic.com/en/api/messages,
// "Response"). A body that is not a Message is the upstream's fault: a 502, not a 400.
import type { Part } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { arr, isObject, obj, str, type Json } from '../shared/narrow.ts';
import { citationsOfWire } from './messages-citations.ts';
import { completeUsage, usageOfWire } from './messages-usage.ts';
import { finishOfStopReason } from './stop-reason-map.ts';

/**
 * One response block -> IR part. Server-tool blocks (web search, code execution run by
 * Anthropic) have no IR part; the answer's text and its citations carry what they found.
 */
export function partOfResponseBlock(b: Json, field: string): Part | undefined {
  switch (b.type) {
    case 'text': {
      const citations = citationsOfWire(b.citations);
      return { type: 'text', text: str(b.text, `${field}.text`), ...(citations ? { citations } : {}) };
    }
    case 'tool_use':
      // The SDKs hand over `input` as an object; its JSON text becomes the IR's argument string.
      return {
        type: 'tool-call',
        id: str(b.id, `${field}.id`),
        name: str(b.name, `${field}.name`),
        args: JSON.stringify(b.input ?? {}),
      };
    case 'thinking': {
      const signature = typeof b.signature === 'string' && b.signature !== '' ? { signature: b.signature } : {};
      return {
        type: 'reasoning',
        text: str(b.thinking, `${field}.thinking`),
        ...signature,
        origin: 'anthropic-messages',
      };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: str(b.data, `${field}.data`), origin: 'anthropic-messages' };
    default:
      return undefined;
  }
}

function decode(body: unknown): ChatResult {
  const m = obj(body, 'body');
  const parts = arr(m.content, 'content')
    .map((b, i) => partOfResponseBlock(obj(b, `content.${i}`), `content.${i}`))
    .filter((p): p is Part => p !== undefined);
  const stopReason = typeof m.stop_reason === 'string' ? m.stop_reason : null;
  const stopSequence = typeof m.stop_sequence === 'string' ? m.stop_sequence : null;
  return {
    id: str(m.id, 'id'),
    model: typeof m.model === 'string' ? m.model : '',
    parts,
    finish: finishOfStopReason(stopReason, stopSequence),
    usage: completeUsage(usageOfWire(m.usage)),
  };
}

export function decodeMessagesUpstreamResult(body: unknown): ChatResult {
  if (isObject(body) && body.type === 'error')
    throw new GatewayError('upstream', 'anthropic upstream answered an error body with a success status');
  try {
    return decode(body);
  } catch (e) {
    if (e instanceof GatewayError && e.kind === 'invalid-request')
      throw new GatewayError('upstream', `anthropic upstream answered an unexpected body (${e.message})`);
    throw e;
  }
}
