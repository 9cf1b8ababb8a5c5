// The `input` of a Responses request → IR system parts and messages
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
// A string is one user text. Items become parts of IR turns: consecutive items of the same role
// share one IR message, as IR turns alternate the way the Messages API needs them.
// function_call → assistant tool-call (call_id as id, arguments kept byte-exact);
// function_call_output → user tool-result; reasoning → assistant reasoning part (origin 'openai',
// summary texts joined, encrypted_content → encrypted, the item id in `signature`, see below);
// item_reference → recorded in extensions for the pipeline to resolve (ItemReferenceSlot).
import type { Message, Part, ReasoningPart, Role, TextPart, ToolResultPart } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, obj, str, type Json } from '../shared/narrow.ts';
import { openReasoning } from '../shared/reasoning-envelope.ts';
import { decodeAssistantContent, decodeSystemContent, decodeUserContent } from './decode-input-content.ts';
import type { ItemReferenceSlot } from './responses-extensions.ts';
import { absent, enumOf, missing, required } from './responses-validate.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

export type DecodedInput = { system: TextPart[]; messages: Message[]; references: ItemReferenceSlot[] };

const roles = ['user', 'assistant', 'system', 'developer'] as const;

/**
 * Item types with a place in the IR. Others (file_search_call, web_search_call, computer_call,
 * computer_call_output, …) are provider-side tool traffic the IR cannot carry: a 400 names them.
 */
const itemTypes = ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference'] as const;

export function decodeInput(input: unknown): DecodedInput {
  const out: DecodedInput = { system: [], messages: [], references: [] };
  if (typeof input === 'string') {
    out.messages.push({ role: 'user', parts: [{ type: 'text', text: input }] });
    return out;
  }
  const items = arr(input, 'input');
  /** call_id → function name, so tool results can name their tool (Gemini needs it). */
  const callNames = new Map<string, string>();
  items.forEach((raw, i) => decodeItem(obj(raw, `input[${i}]`), i, out, callNames));
  return out;
}

function push(out: DecodedInput, role: Role, parts: Part[]): void {
  if (parts.length === 0) return;
  const last = out.messages[out.messages.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else out.messages.push({ role, parts });
}

function decodeItem(item: Json, i: number, out: DecodedInput, callNames: Map<string, string>): void {
  const p = `input[${i}]`;
  // EasyInputMessage may omit `type` (an object with a `role` is a message), and so may an
  // item reference (an object with just an `id`).
  const type = !absent(item.type) ? item.type : !absent(item.role) ? 'message' : !absent(item.id) ? 'item_reference' : undefined;
  if (absent(type)) throw missing(`${p}.type`);
  if (typeof type === 'string' && !(itemTypes as readonly string[]).includes(type)) {
    throw invalid(`${p}.type`, `Invalid value for '${p}.type': items of type '${type}' cannot be translated by polygate; send the conversation as messages and function calls.`);
  }
  const t = enumOf(type, itemTypes, `${p}.type`);
  switch (t) {
    case 'message':
      return decodeMessage(item, p, out);
    case 'function_call': {
      const id = required(item.call_id, `${p}.call_id`, str);
      const name = required(item.name, `${p}.name`, str);
      const args = required(item.arguments, `${p}.arguments`, str);
      callNames.set(id, name);
      return push(out, 'assistant', [{ type: 'tool-call', id, name, args }]);
    }
    case 'function_call_output':
      return push(out, 'user', [decodeCallOutput(item, p, callNames)]);
    case 'reasoning':
      return push(out, 'assistant', [decodeReasoning(item, p)]);
    case 'item_reference': {
      const id = required(item.id, `${p}.id`, str);
      const last = out.messages[out.messages.length - 1];
      const slot: ItemReferenceSlot = last
        ? { id, inputIndex: i, messageIndex: out.messages.length - 1, partIndex: last.parts.length }
        : { id, inputIndex: i, messageIndex: 0, partIndex: 0 };
      out.references.push(slot);
      return;
    }
    default:
      return assertNever(t, 'input item');
  }
}

function decodeMessage(item: Json, p: string, out: DecodedInput): void {
  const role = required(item.role, `${p}.role`, (v, f) => enumOf(v, roles, f));
  if (absent(item.content)) throw missing(`${p}.content`);
  switch (role) {
    case 'system':
    case 'developer':
      out.system.push(...decodeSystemContent(item.content, `${p}.content`));
      return;
    case 'user':
      return push(out, 'user', decodeUserContent(item.content, `${p}.content`));
    case 'assistant':
      return push(out, 'assistant', decodeAssistantContent(item.content, `${p}.content`));
    default:
      return assertNever(role, 'message role');
  }
}

/** `output` is a string (usually JSON) or, in newer API versions, a list of input_text / input_image. */
function decodeCallOutput(item: Json, p: string, callNames: Map<string, string>): ToolResultPart {
  const callId = required(item.call_id, `${p}.call_id`, str);
  if (absent(item.output)) throw missing(`${p}.output`);
  const part: ToolResultPart = { type: 'tool-result', callId, content: [], isError: false };
  if (typeof item.output === 'string') part.content.push({ type: 'text', text: item.output });
  else {
    for (const c of decodeUserContent(item.output, `${p}.output`)) {
      if (c.type === 'file') throw invalid(`${p}.output`, `Invalid '${p}.output': files in function call outputs cannot be translated by polygate.`);
      part.content.push(c);
    }
  }
  const name = callNames.get(callId);
  if (name !== undefined) part.name = name;
  return part;
}

/**
 * A reasoning item replayed by the client. Its encrypted_content is bound to the item id
 * (OpenAI rejects it under another id), and the IR has no field for an item id, so the id travels
 * in `signature` of an 'openai'-origin part: the one place this adapter reads it back from.
 */
function decodeReasoning(item: Json, p: string): ReasoningPart {
  const id = required(item.id, `${p}.id`, str);
  if (absent(item.summary)) throw missing(`${p}.summary`);
  const texts = arr(item.summary, `${p}.summary`).map((raw, k) => {
    const s = obj(raw, `${p}.summary[${k}]`);
    enumOf(s.type, ['summary_text'] as const, `${p}.summary[${k}].type`);
    return required(s.text, `${p}.summary[${k}].text`, str);
  });
  const encrypted = absent(item.encrypted_content) ? undefined : str(item.encrypted_content, `${p}.encrypted_content`);
  // Another provider's reasoning that polygate sealed into encrypted_content goes back to its origin.
  const sealed = encrypted === undefined ? undefined : openReasoning(encrypted, texts.join('\n\n'));
  if (sealed) return sealed;
  const part: ReasoningPart = { type: 'reasoning', text: texts.join('\n\n'), origin: 'openai', signature: id };
  if (encrypted !== undefined) part.encrypted = encrypted;
  return part;
}

