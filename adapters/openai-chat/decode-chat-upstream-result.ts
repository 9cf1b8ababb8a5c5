// Chat Completions `chat.completion` object → IR ChatResult
// (https://platform.openai.com/docs/api-reference/chat/object).
import type { Citation, Part, TextPart } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { arr, isObject, obj, optStr, str, type Json } from '../shared/narrow.ts';
import { decodeChatStreamError } from './chat-error.ts';
import { finishOfChatReason } from './chat-finish-reason.ts';
import { decodeChatUsage } from './chat-usage.ts';

export function decodeChatUpstreamResult(body: unknown): ChatResult {
  // Some compatible servers answer 200 with an error body.
  if (isObject(body) && body.error !== undefined && body.error !== null && body.choices === undefined)
    throw decodeChatStreamError(body);
  try {
    return decodeBody(body);
  } catch (e) {
    // The narrow helpers report bad *client* input; a malformed upstream answer is the upstream's fault.
    if (e instanceof GatewayError && e.kind === 'invalid-request') {
      throw new GatewayError('upstream', `openai-chat upstream answered an unexpected body (${e.message})`);
    }
    throw e;
  }
}

function decodeBody(body: unknown): ChatResult {
  const b = obj(body, 'body');
  const choices = arr(b.choices, 'choices');
  const choice = obj(choices[0], 'choices[0]');
  const message = obj(choice.message, 'choices[0].message');
  const finishRaw = optStr(choice.finish_reason, 'choices[0].finish_reason');
  return {
    id: typeof b.id === 'string' ? b.id : '',
    model: typeof b.model === 'string' ? b.model : '',
    parts: decodeMessageParts(message),
    finish: finishOfChatReason(finishRaw),
    usage: decodeChatUsage(b.usage),
  };
}

/** Reasoning first (it came first), then the answer text, the refusal and the tool calls. */
function decodeMessageParts(m: Json): Part[] {
  const parts: Part[] = [];
  // `reasoning_content` (DeepSeek, vLLM, SGLang) and `reasoning` (OpenRouter, Ollama) are how
  // compatible servers return reasoning text; OpenAI itself sends neither.
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '')
    parts.push({ type: 'reasoning', text: reasoning, origin: 'openai-chat' });
  const content = optStr(m.content, 'choices[0].message.content');
  if (content !== undefined && content !== '') {
    const text: TextPart = { type: 'text', text: content };
    const citations = decodeAnnotations(m.annotations);
    if (citations) text.citations = citations;
    parts.push(text);
  }
  const refusal = optStr(m.refusal, 'choices[0].message.refusal');
  if (refusal !== undefined && refusal !== '') parts.push({ type: 'refusal', text: refusal });
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    arr(m.tool_calls, 'choices[0].message.tool_calls').forEach((tc, i) => {
      const field = `choices[0].message.tool_calls[${i}]`;
      const call = obj(tc, field);
      const fn = obj(call.function, `${field}.function`);
      // Arguments stay the exact text the model produced (IR ToolCallPart.args).
      parts.push({
        type: 'tool-call',
        id: str(call.id, `${field}.id`),
        name: str(fn.name, `${field}.function.name`),
        args: optStr(fn.arguments, `${field}.function.arguments`) ?? '',
      });
    });
  }
  if (isObject(m.function_call)) {
    // The deprecated single `function_call` carries no id; name it so a later turn can answer it.
    const fn = m.function_call;
    parts.push({
      type: 'tool-call',
      id: 'function_call',
      name: str(fn.name, 'choices[0].message.function_call.name'),
      args: optStr(fn.arguments, 'function_call.arguments') ?? '',
    });
  }
  return parts;
}

/** `url_citation` annotations (web search models) become URL citations on the text. */
function decodeAnnotations(v: unknown): Citation[] | undefined {
  // OpenAI sends `annotations: []` with every answer: no list (nor iterator) built for it.
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const out: Citation[] = [];
  for (let i = 0; i < v.length; i++) {
    const a: unknown = v[i];
    if (!isObject(a) || a.type !== 'url_citation' || !isObject(a.url_citation)) continue;
    const c = a.url_citation;
    if (typeof c.url !== 'string') continue;
    out.push({
      kind: 'url',
      url: c.url,
      ...(typeof c.title === 'string' ? { title: c.title } : {}),
      ...(typeof c.start_index === 'number' ? { start: c.start_index } : {}),
      ...(typeof c.end_index === 'number' ? { end: c.end_index } : {}),
    });
  }
  return out.length > 0 ? out : undefined;
}
