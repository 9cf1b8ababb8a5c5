// IR result -> the Messages response object (https://docs.anthropic.com/en/api/messages,
// "Response"). The model reported is the client's name for it, not the upstream's.
import type { ChatRequest, Part, ReasoningPart } from '../../src/ir/chat-request.ts';
import type { ReasoningOrigin } from '../../src/ir/wire-format.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { failedFinish } from '../shared/failed-finish.ts';
import { parseJsonObject, type Json } from '../shared/narrow.ts';
import { wireCitationOf } from './messages-citations.ts';
import { serverToolBlockOf } from './messages-server-tools.ts';
import { wireUsageOf } from './messages-usage.ts';
import { stopReasonOf } from './stop-reason-map.ts';

export const messageId = (id: string): string => (id.startsWith('msg_') ? id : `msg_${id}`);

/**
 * A signature is only meaningful to Anthropic: another provider's opaque token must not come back
 * later looking like an Anthropic one, so it is shown as an empty signature.
 */
export const anthropicSignature = (p: { origin: ReasoningOrigin; signature?: string }): string =>
  p.origin === 'anthropic-messages' ? (p.signature ?? '') : '';

function reasoningBlock(p: ReasoningPart): Json | undefined {
  if (p.redacted !== undefined && p.origin === 'anthropic-messages')
    return { type: 'redacted_thinking', data: p.redacted };
  if (p.text === '' && anthropicSignature(p) === '') return undefined;
  return { type: 'thinking', thinking: p.text, signature: anthropicSignature(p) };
}

const fence = (lang: string, body: string): string => `\`\`\`${lang}\n${body}${body.endsWith('\n') ? '' : '\n'}\`\`\``;

/** One response content block per part; parts this wire cannot show in a response are skipped. */
export function responseBlockOf(p: Part): Json | undefined {
  switch (p.type) {
    case 'text':
      // Response text blocks are 1 to 5000000 characters (spec, Limits): empty ones are not sent
      // (longer ones are split by encodeMessagesResult).
      if (p.text === '') return undefined;
      return p.citations && p.citations.length > 0
        ? { type: 'text', text: p.text, citations: p.citations.map(wireCitationOf) }
        : { type: 'text', text: p.text };
    case 'reasoning':
      return reasoningBlock(p);
    case 'tool-call':
      return {
        type: 'tool_use',
        id: p.id,
        name: p.name,
        input: parseJsonObject(p.args, `arguments of tool call '${p.name}'`),
      };
    case 'refusal':
      return p.text === '' ? undefined : { type: 'text', text: p.text };
    case 'hosted-call':
    case 'hosted-result':
      return serverToolBlockOf(p);
    // Executed code (Gemini code execution) has no client-side block here: shown as fenced text.
    case 'code':
      return { type: 'text', text: fence(p.language.toLowerCase(), p.code) };
    case 'code-result':
      return p.output === '' ? undefined : { type: 'text', text: fence('', p.output) };
    // Messages responses never carry media or tool results.
    case 'image':
    case 'file':
    case 'tool-result':
      return undefined;
    default:
      return assertNever(p, 'part');
  }
}

export const MAX_TEXT_BLOCK = 5_000_000;

/** A text block over the spec's limit becomes several; citations stay on the first. */
function splitLongText(block: Json): Json[] {
  if (block.type !== 'text' || typeof block.text !== 'string' || block.text.length <= MAX_TEXT_BLOCK) return [block];
  const out: Json[] = [];
  for (let i = 0; i < block.text.length; i += MAX_TEXT_BLOCK) {
    out.push(
      i === 0
        ? { ...block, text: block.text.slice(0, MAX_TEXT_BLOCK) }
        : { type: 'text', text: block.text.slice(i, i + MAX_TEXT_BLOCK) },
    );
  }
  return out;
}

/** The response's content blocks, built in one array (no array per part): every translated Messages answer passes here. */
function contentOf(parts: Part[]): Json[] {
  const out: Json[] = [];
  for (let i = 0; i < parts.length; i++) {
    const block = responseBlockOf(parts[i]);
    if (block === undefined) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.length > MAX_TEXT_BLOCK)
      out.push(...splitLongText(block));
    else out.push(block);
  }
  return out;
}

export function encodeMessagesResult(result: ChatResult, request: ChatRequest): Json {
  const failed = failedFinish(result.finish);
  if (failed) throw failed;
  return {
    id: messageId(result.id),
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: contentOf(result.parts),
    stop_reason: stopReasonOf(result.finish),
    stop_sequence: result.finish.stopSequence ?? null,
    usage: wireUsageOf(result.usage),
  };
}
