// An upstream's Responses response object → IR ChatResult
// (https://platform.openai.com/docs/api-reference/responses/object). Output items become parts in
// order; status `incomplete` with reason max_output_tokens is a `length` finish, content_filter a
// `content-filter` finish; any function_call makes it `tool-calls`.
import type { Citation, Part, ReasoningPart } from '../../src/ir/chat-request.ts';
import type { ChatFinish, ChatResult, Usage } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { decodeResponsesStreamError, wireErrorOf } from './responses-error.ts';
import { irCallName } from './tool-identities.ts';
import { citationOfAnnotation } from './citation-of-annotation.ts';

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** OpenAI's input_tokens include cached tokens and output_tokens include reasoning tokens: the details are breakdowns. */
export function decodeResponsesUsage(v: unknown): Usage {
  if (!isObject(v)) return { inputTokens: 0, outputTokens: 0 };
  const usage: Usage = { inputTokens: count(v.input_tokens) ?? 0, outputTokens: count(v.output_tokens) ?? 0 };
  const cached = isObject(v.input_tokens_details) ? count(v.input_tokens_details.cached_tokens) : undefined;
  const reasoning = isObject(v.output_tokens_details) ? count(v.output_tokens_details.reasoning_tokens) : undefined;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** The finish of a response from its status, incomplete_details and whether it called functions. */
export function finishOf(status: unknown, incomplete: unknown, calledFunctions: boolean): ChatFinish {
  const reason = isObject(incomplete) ? text(incomplete.reason) : '';
  if (status === 'incomplete' || reason) {
    if (reason === 'max_output_tokens') return { reason: 'length', raw: reason };
    if (reason === 'content_filter') return { reason: 'content-filter', raw: reason };
    return { reason: 'other', raw: reason || 'incomplete' };
  }
  if (calledFunctions) return { reason: 'tool-calls', raw: 'completed' };
  return { reason: 'stop', raw: typeof status === 'string' ? status : 'completed' };
}

/**
 * The reasoning part of a reasoning item. The item id goes to `signature` (origin 'openai-responses'): the
 * IR has no item-id field and the encrypted content is only accepted back under the same id.
 */
export function reasoningPartOf(item: Json): ReasoningPart {
  const summary = Array.isArray(item.summary) ? item.summary.filter(isObject).map((s) => text(s.text)) : [];
  const content = Array.isArray(item.content) ? item.content.filter(isObject).map((s) => text(s.text)) : [];
  const part: ReasoningPart = {
    type: 'reasoning',
    text: (summary.length > 0 ? summary : content).join('\n\n'),
    origin: 'openai-responses',
  };
  if (typeof item.id === 'string') part.signature = item.id;
  if (typeof item.encrypted_content === 'string') part.encrypted = item.encrypted_content;
  return part;
}

/** Annotations that are not objects, or of kinds no other format can cite, are skipped: the upstream's answer stands. */
const citationsOf = (annotations: unknown): Citation[] =>
  Array.isArray(annotations) ? annotations.filter(isObject).flatMap((a) => citationOfAnnotation(a) ?? []) : [];

/**
 * One output item → IR parts. Hosted-tool traffic the model ran itself (web_search_call,
 * file_search_call) is informational: its results arrive as annotated text. Item types polygate
 * does not know are skipped.
 */
export function partsOfItem(item: Json): Part[] {
  switch (item.type) {
    case 'message': {
      const content = Array.isArray(item.content) ? item.content.filter(isObject) : [];
      return content.flatMap((c): Part[] => {
        if (c.type === 'output_text') {
          const citations = citationsOf(c.annotations);
          return [
            citations.length > 0
              ? { type: 'text', text: text(c.text), citations }
              : { type: 'text', text: text(c.text) },
          ];
        }
        if (c.type === 'refusal') return [{ type: 'refusal', text: text(c.refusal) }];
        return [];
      });
    }
    case 'function_call':
      return [{ type: 'tool-call', id: text(item.call_id), name: irCallName(item), args: text(item.arguments) }];
    case 'reasoning':
      return [reasoningPartOf(item)];
    case 'code_interpreter_call': {
      const parts: Part[] = [{ type: 'code', language: 'python', code: text(item.code) }];
      const logs = Array.isArray(item.outputs)
        ? item.outputs
            .filter(isObject)
            .map((o) => text(o.logs))
            .filter(Boolean)
        : [];
      if (logs.length > 0) parts.push({ type: 'code-result', outcome: 'ok', output: logs.join('\n') });
      return parts;
    }
    case 'image_generation_call':
      return typeof item.result === 'string'
        ? [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: item.result } }]
        : [];
    default:
      return [];
  }
}

export function decodeResponseObject(body: unknown): ChatResult {
  if (!isObject(body))
    throw new GatewayError(
      'upstream',
      'the openai-responses upstream answered with something that is not a response object',
    );
  if (body.status === 'failed' || isObject(body.error))
    throw decodeResponsesStreamError(wireErrorOf({ error: body.error }));
  const items = Array.isArray(body.output) ? body.output.filter(isObject) : [];
  const parts = items.flatMap(partsOfItem);
  return {
    id: text(body.id),
    model: text(body.model),
    parts,
    finish: finishOf(
      body.status,
      body.incomplete_details,
      items.some((i) => i.type === 'function_call'),
    ),
    usage: decodeResponsesUsage(body.usage),
  };
}
