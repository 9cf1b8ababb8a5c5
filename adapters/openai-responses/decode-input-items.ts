// The `input` of a Responses request → IR system parts and messages
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
// A string is one user text. Items become parts of IR turns: consecutive items of the same role
// share one IR message, as IR turns alternate the way the Messages API needs them. Leading
// system/developer messages are the IR system prompt; later ones IR system messages in place.
// function_call → assistant tool-call (call_id as id, arguments kept byte-exact);
// function_call_output → user tool-result; custom_tool_call(_output) → the same, the freeform
// input as `{"input": …}`; reasoning → assistant reasoning part (origin 'openai-responses',
// summary texts joined, encrypted_content → encrypted, the item id in `signature`, see below);
// item_reference → recorded in extensions for the pipeline to resolve (ItemReferenceSlot).
import type { Message, Part, ReasoningPart, Role, TextPart, ToolResultPart } from '../../src/ir/chat-request.ts';
import { arr, obj, str, type Json } from '../shared/narrow.ts';
import type { DecodeNotes } from './decode-notes.ts';
import { flatToolName } from './tool-identities.ts';
import { openReasoning } from '../shared/reasoning-envelope.ts';
import { placeInstructions } from '../shared/system-message.ts';
import { decodeAssistantContent, decodeSystemContent, decodeUserContent } from './decode-input-content.ts';
import type { ItemReferenceSlot } from './responses-extensions.ts';
import { absent, missing, required } from './responses-validate.ts';
import { noteInto, openEnum } from '../shared/open-enum.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { partsOfWebSearchCall } from './web-search-items.ts';

export type DecodedInput = { system: TextPart[]; messages: Message[]; references: ItemReferenceSlot[] };

const roles = ['user', 'assistant', 'system', 'developer'] as const;

/**
 * Item types with a place in the IR. Every other type is earlier output a client resends (Codex
 * replays its whole turn: web_search_call, local_shell_call, mcp_call, image_generation_call,
 * computer_call, …) or a type newer than polygate: hosted-tool traffic only the provider that ran
 * it can read. It is never a 400: noted as dropped, so each upstream encoder warns about it; the
 * model still sees the answer text that followed the call. A same-format relay keeps it.
 */
const itemTypes = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'item_reference',
] as const;
type ItemType = (typeof itemTypes)[number];
const isItemType = (t: string): t is ItemType => (itemTypes as readonly string[]).includes(t);

/**
 * `continues`: the input follows a stored conversation (`previous_response_id`), so an
 * instruction at its start already comes after earlier turns.
 */
export function decodeInput(input: unknown, notes: DecodeNotes, continues = false): DecodedInput {
  const out: DecodedInput = { system: [], messages: [], references: [] };
  if (typeof input === 'string') {
    out.messages.push({ role: 'user', parts: [{ type: 'text', text: input }] });
    return out;
  }
  const items = arr(input, 'input');
  /** call_id → function name, so tool results can name their tool (Gemini needs it). */
  const callNames = new Map<string, string>();
  items.forEach((raw, i) => decodeItem(obj(raw, `input[${i}]`), i, out, { callNames, notes, continues }));
  return out;
}

type ItemContext = { callNames: Map<string, string>; notes: DecodeNotes; continues: boolean };

function push(out: DecodedInput, role: Role, parts: Part[]): void {
  if (parts.length === 0) return;
  const last = out.messages[out.messages.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else out.messages.push({ role, parts });
}

/** A call's IR name: a namespaced call gets the flat name its tool was declared under. */
function callName(item: Json, p: string, notes: DecodeNotes): string {
  const name = required(item.name, `${p}.name`, str);
  if (absent(item.namespace)) return name;
  const namespace = str(item.namespace, `${p}.namespace`);
  const flat = flatToolName(namespace, name);
  notes.identities[flat] = { namespace, name };
  return flat;
}

function decodeItem(item: Json, i: number, out: DecodedInput, cx: ItemContext): void {
  const p = `input[${i}]`;
  // EasyInputMessage may omit `type` (an object with a `role` is a message), and so may an
  // item reference (an object with just an `id`).
  const type = !absent(item.type)
    ? item.type
    : !absent(item.role)
      ? 'message'
      : !absent(item.id)
        ? 'item_reference'
        : undefined;
  if (absent(type)) throw missing(`${p}.type`);
  const t = str(type, `${p}.type`);
  // Web searches (the provider's or polygate's) reach the upstream as text (docs/hosted-tools.md).
  if (t === 'web_search_call') return push(out, 'assistant', partsOfWebSearchCall(item, i));
  if (!isItemType(t)) {
    cx.notes.dropped.push({ field: p, value: t });
    return;
  }
  switch (t) {
    case 'message':
      return decodeMessage(item, p, out, cx);
    case 'function_call': {
      const id = required(item.call_id, `${p}.call_id`, str);
      const name = callName(item, p, cx.notes);
      const args = required(item.arguments, `${p}.arguments`, str);
      cx.callNames.set(id, name);
      return push(out, 'assistant', [{ type: 'tool-call', id, name, args }]);
    }
    case 'custom_tool_call': {
      // A freeform call: its text input travels as the one argument of an IR tool call.
      const id = required(item.call_id, `${p}.call_id`, str);
      const name = callName(item, p, cx.notes);
      const input = required(item.input, `${p}.input`, str);
      cx.callNames.set(id, name);
      return push(out, 'assistant', [{ type: 'tool-call', id, name, args: JSON.stringify({ input }) }]);
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      return push(out, 'user', [decodeCallOutput(item, p, cx)]);
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

function decodeMessage(item: Json, p: string, out: DecodedInput, { notes, continues }: ItemContext): void {
  // A role newer than polygate has no meaning to map to: the item is left out, warned.
  const role = required(item.role, `${p}.role`, (v, f) => openEnum(v, roles, f, noteInto(notes.dropped)));
  if (absent(item.content)) throw missing(`${p}.content`);
  switch (role) {
    case undefined:
      return;
    case 'system':
    case 'developer':
      // A continued conversation has begun already: its instructions never lead.
      return placeInstructions(
        decodeSystemContent(item.content, `${p}.content`, notes),
        out.messages.length === 0 && !continues,
        out,
      );
    case 'user':
      return push(out, 'user', decodeUserContent(item.content, `${p}.content`, notes));
    case 'assistant':
      return push(out, 'assistant', decodeAssistantContent(item.content, `${p}.content`, notes));
    default:
      return assertNever(role, 'message role');
  }
}

/** `output` is a string (usually JSON) or, in newer API versions, a list of input_text / input_image / input_file. */
function decodeCallOutput(item: Json, p: string, cx: ItemContext): ToolResultPart {
  const callId = required(item.call_id, `${p}.call_id`, str);
  if (absent(item.output)) throw missing(`${p}.output`);
  const part: ToolResultPart = { type: 'tool-result', callId, content: [], isError: false };
  if (typeof item.output === 'string') part.content.push({ type: 'text', text: item.output });
  else {
    decodeUserContent(item.output, `${p}.output`, cx.notes).forEach((c, k) => {
      // An IR tool result holds text and images; a file there has no place on any upstream.
      if (c.type === 'file') cx.notes.dropped.push({ field: `${p}.output[${k}]`, value: 'input_file' });
      else part.content.push(c);
    });
  }
  const name = cx.callNames.get(callId);
  if (name !== undefined) part.name = name;
  return part;
}

/**
 * A reasoning item replayed by the client. Its encrypted_content is bound to the item id
 * (OpenAI rejects it under another id), and the IR has no field for an item id, so the id travels
 * in `signature` of an 'openai-responses'-origin part: the one place this adapter reads it back from.
 * The text is the summary, or the raw reasoning `content` when there is no summary (Codex sends
 * `summary: []` with only encrypted content; summary parts of unknown types are skipped).
 */
function decodeReasoning(item: Json, p: string): ReasoningPart {
  const id = required(item.id, `${p}.id`, str);
  const texts = (key: 'summary' | 'content', type: string): string[] =>
    absent(item[key])
      ? []
      : arr(item[key], `${p}.${key}`).flatMap((raw, k) => {
          const s = obj(raw, `${p}.${key}[${k}]`);
          return s.type === type ? [required(s.text, `${p}.${key}[${k}].text`, str)] : [];
        });
  const summary = texts('summary', 'summary_text');
  const text = (summary.length > 0 ? summary : texts('content', 'reasoning_text')).join('\n\n');
  const encrypted = absent(item.encrypted_content) ? undefined : str(item.encrypted_content, `${p}.encrypted_content`);
  // Another provider's reasoning that polygate sealed into encrypted_content goes back to its origin.
  const sealed = encrypted === undefined ? undefined : openReasoning(encrypted, text);
  if (sealed) return sealed;
  const part: ReasoningPart = { type: 'reasoning', text, origin: 'openai-responses', signature: id };
  if (encrypted !== undefined) part.encrypted = encrypted;
  return part;
}
