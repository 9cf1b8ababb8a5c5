// IR messages → Gemini `contents` for a Gemini upstream (https://ai.google.dev/api/caching#Content).
import { hostedPartText } from '../shared/hosted-part-text.ts';
import type { Message, Part } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { WarningSink } from '../shared/chat-adapter.ts';
import { jsonTextTooDeep, maxJsonTextDepth } from '../shared/json-depth.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { foldSystemMessages } from '../shared/system-message.ts';
import { isSyntheticCallId } from './call-ids.ts';
import { functionResponseOf } from './encode-gemini-result.ts';
import { codeExecutionResult, executableCode, inlineMedia } from './gemini-wire-parts.ts';
import { hasOpaque } from './thought-signature.ts';

/** Warns once per field for one request, so a long history does not repeat itself. */
export function onceWarner(warn: WarningSink): WarningSink {
  const seen = new Set<string>();
  return (field, message) => {
    if (seen.has(field)) return;
    seen.add(field);
    warn(field, message);
  };
}

export function encodeContents(messages: Message[], warn: WarningSink): Json[] {
  const names = new Map<string, string>();
  const contents: Json[] = [];
  foldSystemMessages(messages, 'gemini', warn).forEach((m, i) => {
    const parts = new PartList();
    m.parts.forEach((p, j) => encodePart(p, `messages[${i}].parts[${j}]`, parts, names, warn));
    const list = parts.done();
    if (m.role === 'assistant') signFunctionCalls(list);
    // A turn left empty (only foreign reasoning) is skipped: Gemini rejects a Content without parts.
    if (list.length > 0) contents.push({ role: m.role === 'assistant' ? 'model' : 'user', parts: list });
  });
  return contents;
}

/**
 * Gemini 3 rejects a model turn whose function call carries no thought signature. A call another
 * provider made (or one a client could not carry a signature for) has none, so the first call of
 * such a turn gets the placeholder Google documents for history from elsewhere
 * (https://ai.google.dev/gemini-api/docs/thought-signatures, "dummy signatures").
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

function signFunctionCalls(parts: Json[]): void {
  if (parts.some((p) => p.thoughtSignature !== undefined)) return;
  const call = parts.find((p) => p.functionCall !== undefined);
  if (call) call.thoughtSignature = SKIP_SIGNATURE;
}

/** Parts of one Content; a pending thoughtSignature lands on the next part, where Gemini put it. */
class PartList {
  #parts: Json[] = [];
  #pending: string | undefined;
  push(p: Json): void {
    if (this.#pending !== undefined) p.thoughtSignature = this.#pending;
    this.#pending = undefined;
    this.#parts.push(p);
  }
  pushThought(text: string, signature: string | undefined): void {
    this.#flush();
    this.#parts.push(
      signature === undefined ? { text, thought: true } : { text, thought: true, thoughtSignature: signature },
    );
  }
  sign(signature: string): void {
    this.#flush();
    this.#pending = signature;
  }
  done(): Json[] {
    this.#flush();
    return this.#parts;
  }
  /** A signature with no part after it is sent as Gemini streams it: on an empty text part. */
  #flush(): void {
    if (this.#pending !== undefined) this.#parts.push({ text: '', thoughtSignature: this.#pending });
    this.#pending = undefined;
  }
}

function encodePart(p: Part, at: string, parts: PartList, names: Map<string, string>, warn: WarningSink): void {
  if ('cache' in p && p.cache !== undefined)
    warn('cache', 'gemini caches prompts implicitly; cache hints were dropped');
  switch (p.type) {
    case 'text':
    case 'refusal':
      parts.push({ text: p.text });
      break;
    case 'image':
    case 'file': {
      const media = inlineMedia(p.source);
      if (!media) {
        throw invalid(
          at,
          `${at}: provider format 'gemini' takes images and files only as base64 data (a URL or file id would need fileData, which polygate does not support)`,
        );
      }
      if (p.type === 'image' && p.detail !== undefined && p.detail !== 'auto')
        warn('detail', "gemini has no per-image detail setting; 'detail' was dropped");
      parts.push(media);
      break;
    }
    case 'reasoning':
      // Thought signatures are valid only on the provider that issued them.
      if (p.origin === 'gemini') {
        if (p.text !== '') parts.pushThought(p.text, p.signature);
        else if (p.signature !== undefined) parts.sign(p.signature);
      } else if (p.text !== '' || hasOpaque(p)) {
        warn(
          'reasoning',
          `reasoning from ${p.origin ?? 'another provider'} cannot be replayed to gemini and was dropped`,
        );
      }
      break;
    case 'tool-call': {
      names.set(p.id, p.name);
      const call: Json = { name: p.name, args: argsOf(p.args, `${at}.args`) };
      parts.push({ functionCall: isSyntheticCallId(p.id, p.name) ? call : { id: p.id, ...call } });
      break;
    }
    case 'tool-result': {
      const name = p.name ?? names.get(p.callId);
      if (name === undefined) {
        throw invalid(
          `${at}.callId`,
          `${at}.callId: provider format 'gemini' needs the function name of tool result '${p.callId}', and no earlier tool call has that id`,
        );
      }
      for (const c of p.content) {
        if (c.type === 'image' && inlineMedia(c.source) === undefined)
          throw invalid(at, `${at}: provider format 'gemini' takes tool result images only as base64 data`);
      }
      parts.push({
        functionResponse: functionResponseOf(p, name, isSyntheticCallId(p.callId, name) ? undefined : p.callId),
      });
      break;
    }
    case 'code':
      parts.push(executableCode(p));
      break;
    case 'code-result':
      parts.push(codeExecutionResult(p));
      break;
    case 'hosted-call':
    case 'hosted-result':
      parts.push({ text: hostedPartText(p) });
      break;
    default:
      assertNever(p, 'part');
  }
}

/** FunctionCall.args is an object; the IR keeps the model's JSON text. */
function argsOf(text: string, at: string): Json {
  if (text.trim() === '') return {};
  if (jsonTextTooDeep(text))
    throw invalid(at, `${at}: tool call arguments nest deeper than ${maxJsonTextDepth} levels`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw invalid(at, `${at}: tool call arguments are not valid JSON`);
  }
  return isObject(v) ? v : { value: v };
}
