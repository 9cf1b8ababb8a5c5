// Chat Completions `messages` from a client → IR system + messages
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages).
// Params name the field the way OpenAI does: `messages[2].content[0].image_url.url`.
import type {
  FilePart,
  ImagePart,
  Message,
  Part,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  TurnMessage,
} from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { arr, obj, optStr, str, type Json } from '../shared/narrow.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import { nearestDetail, noteInto, openEnum } from '../shared/open-enum.ts';
import { parseDataUrl } from '../shared/data-url.ts';
import { placeInstructions } from '../shared/system-message.ts';

const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

export type DecodedMessages = { system: TextPart[]; messages: Message[] };

/**
 * Content part and tool call types outside the known ones (a type newer than polygate) are no
 * error: they go into `dropped` and every upstream encoder names them in a warning.
 */
export function decodeChatMessages(v: unknown, dropped: DroppedField[]): DecodedMessages {
  const list = arr(v, 'messages');
  if (list.length === 0) throw invalid('messages', 'messages: must contain at least one message (got [])');
  const system: TextPart[] = [];
  const messages: Message[] = [];
  /** Tool names by call id, so tool results can name their tool (Gemini needs it). */
  const toolNames = new Map<string, string>();
  // Tool messages and the user message right after them form ONE IR user turn: the IR has no
  // tool role, and formats like Anthropic's need results and new user text in the same turn.
  let openToolTurn: TurnMessage | undefined;
  list.forEach((raw, i) => {
    const field = `messages[${i}]`;
    const m = obj(raw, field);
    if (m.name !== undefined) str(m.name, `${field}.name`); // participant names have no IR home; validated only
    // A role newer than polygate has no meaning to map to: the message is left out, warned.
    const role = openEnum(m.role, roles, `${field}.role`, noteInto(dropped));
    switch (role) {
      case undefined:
        break;
      case 'system':
      case 'developer':
        placeInstructions(decodeTextContent(m.content, `${field}.content`, dropped), messages.length === 0, {
          system,
          messages,
        });
        openToolTurn = undefined;
        break;
      case 'user': {
        const parts = decodeUserContent(m.content, `${field}.content`, dropped);
        if (openToolTurn) openToolTurn.parts.push(...parts);
        else messages.push({ role: 'user', parts });
        openToolTurn = undefined;
        break;
      }
      case 'assistant':
        messages.push({ role: 'assistant', parts: decodeAssistant(m, field, toolNames, dropped) });
        openToolTurn = undefined;
        break;
      case 'tool': {
        const part = decodeToolMessage(m, field, toolNames, dropped);
        if (openToolTurn) openToolTurn.parts.push(part);
        else messages.push((openToolTurn = { role: 'user', parts: [part] }));
        break;
      }
      case 'function':
        throw invalid(
          `${field}.role`,
          `${field}.role: the 'function' role is deprecated; send tool results as role 'tool' with a tool_call_id`,
        );
      default:
        assertNever(role, 'role');
    }
  });
  if (messages.length === 0 && system.length === 0)
    throw invalid('messages', 'messages: no message polygate can read (see x-polygate-warnings)');
  return { system, messages };
}

function contentArray(v: unknown, field: string): unknown[] {
  if (v === undefined || v === null) throw invalid(field, `${field}: required`);
  if (!Array.isArray(v)) throw invalid(field, `${field}: expected a string or an array of content parts`);
  return v;
}

/** A part's type: one of `known`, or noted as dropped (undefined). */
function known<T extends string>(
  p: Json,
  allowed: readonly T[],
  field: string,
  dropped: DroppedField[],
): T | undefined {
  const type = str(p.type, `${field}.type`);
  if ((allowed as readonly string[]).includes(type)) return type as T;
  dropped.push({ field, value: type });
  return undefined;
}

/** System, developer and tool messages: a string or an array of text parts (others dropped). */
function decodeTextContent(v: unknown, field: string, dropped: DroppedField[]): TextPart[] {
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  const parts = contentArray(v, field);
  if (parts.length === 0) throw invalid(field, `${field}: expected a string or a non-empty array of text parts`);
  return parts.flatMap((p, j): TextPart[] => {
    const part = obj(p, `${field}[${j}]`);
    return known(part, ['text'] as const, `${field}[${j}]`, dropped)
      ? [{ type: 'text', text: str(part.text, `${field}[${j}].text`) }]
      : [];
  });
}

function decodeUserContent(v: unknown, field: string, dropped: DroppedField[]): Part[] {
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  const parts = contentArray(v, field);
  if (parts.length === 0) throw invalid(field, `${field}: expected a string or a non-empty array of content parts`);
  return parts.flatMap((p, j) => decodeUserPart(obj(p, `${field}[${j}]`), `${field}[${j}]`, dropped));
}

function decodeUserPart(p: Json, field: string, dropped: DroppedField[]): Part[] {
  const type = known(p, ['text', 'image_url', 'input_audio', 'file'] as const, field, dropped);
  switch (type) {
    case undefined:
      return [];
    case 'text':
      return [{ type: 'text', text: str(p.text, `${field}.text`) }];
    case 'image_url':
      return [decodeImage(obj(p.image_url, `${field}.image_url`), `${field}.image_url`, dropped)];
    case 'file':
      return [decodeFile(obj(p.file, `${field}.file`), `${field}.file`)];
    case 'input_audio':
      // Audio the model is meant to hear cannot be dropped without answering another question.
      throw invalid(
        `${field}.type`,
        `${field}.type: audio input is not supported by polygate's chat completions endpoint`,
      );
    default:
      return assertNever(type, 'content part type');
  }
}

/** A detail level newer than polygate (Responses has `original`) asks for at least `high`. */
function decodeImage(img: Json, field: string, dropped: DroppedField[]): ImagePart {
  const url = str(img.url, `${field}.url`);
  const detail =
    img.detail === undefined || img.detail === null
      ? undefined
      : openEnum(img.detail, ['auto', 'low', 'high'] as const, `${field}.detail`, noteInto(dropped), nearestDetail);
  const part: ImagePart = { type: 'image', source: imageSource(url, `${field}.url`) };
  if (detail) part.detail = detail;
  return part;
}

function imageSource(url: string, field: string): ImagePart['source'] {
  if (/^data:/i.test(url)) {
    const d = parseDataUrl(url);
    if (!d) throw invalid(field, `${field}: a data URL must be base64 encoded (data:<media type>;base64,…)`);
    return { kind: 'base64', mediaType: d.mediaType, data: d.data };
  }
  if (!/^https?:\/\//i.test(url)) throw invalid(field, `${field}: expected an http(s) URL or a base64 data URL`);
  return { kind: 'url', url };
}

/** https://platform.openai.com/docs/guides/pdf-files: `file_data` is a data URL, or a `file_id`. */
function decodeFile(f: Json, field: string): FilePart {
  const filename = optStr(f.filename, `${field}.filename`);
  const fileData = optStr(f.file_data, `${field}.file_data`);
  const fileId = optStr(f.file_id, `${field}.file_id`);
  const named = filename !== undefined ? { filename } : {};
  if (fileData !== undefined) {
    const d = parseDataUrl(fileData);
    // Plain base64 (no data: prefix) is what some clients send; OpenAI takes it as a PDF.
    const source = d
      ? { kind: 'base64' as const, mediaType: d.mediaType, data: d.data }
      : { kind: 'base64' as const, mediaType: 'application/pdf', data: fileData };
    return { type: 'file', source, ...named };
  }
  if (fileId !== undefined) return { type: 'file', source: { kind: 'file-id', fileId }, ...named };
  throw invalid(field, `${field}: expected file_data or file_id`);
}

function decodeAssistant(m: Json, field: string, toolNames: Map<string, string>, dropped: DroppedField[]): Part[] {
  if (m.function_call !== undefined && m.function_call !== null) {
    throw invalid(`${field}.function_call`, `${field}.function_call: deprecated; send tool_calls instead`);
  }
  if (m.audio !== undefined && m.audio !== null)
    throw invalid(`${field}.audio`, `${field}.audio: audio responses are not supported by polygate`);
  const parts: Part[] = [];
  if (m.content !== undefined && m.content !== null) {
    if (typeof m.content === 'string') {
      if (m.content !== '') parts.push({ type: 'text', text: m.content });
    } else {
      arr(m.content, `${field}.content`).forEach((p, j) => {
        const f = `${field}.content[${j}]`;
        const part = obj(p, f);
        const type = known(part, ['text', 'refusal'] as const, f, dropped);
        if (type === 'text') parts.push({ type: 'text', text: str(part.text, `${f}.text`) });
        else if (type === 'refusal') parts.push({ type: 'refusal', text: str(part.refusal, `${f}.refusal`) });
      });
    }
  }
  const refusal = optStr(m.refusal, `${field}.refusal`);
  if (refusal !== undefined) parts.push({ type: 'refusal', text: refusal });
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    arr(m.tool_calls, `${field}.tool_calls`).forEach((tc, k) =>
      parts.push(
        ...decodeToolCall(obj(tc, `${field}.tool_calls[${k}]`), `${field}.tool_calls[${k}]`, toolNames, dropped),
      ),
    );
  }
  if (parts.length === 0 && m.content === undefined)
    throw invalid(`${field}.content`, `${field}.content: required unless tool_calls is set`);
  return parts;
}

/** A function call, or a custom (free-form) call whose text input travels as `{"input": …}`. */
function decodeToolCall(
  tc: Json,
  field: string,
  toolNames: Map<string, string>,
  dropped: DroppedField[],
): ToolCallPart[] {
  const type = known(tc, ['function', 'custom'] as const, field, dropped);
  if (type === undefined) return [];
  const id = str(tc.id, `${field}.id`);
  if (type === 'custom') {
    const c = obj(tc.custom, `${field}.custom`);
    const name = str(c.name, `${field}.custom.name`);
    toolNames.set(id, name);
    return [{ type: 'tool-call', id, name, args: JSON.stringify({ input: str(c.input, `${field}.custom.input`) }) }];
  }
  const fn = obj(tc.function, `${field}.function`);
  const name = str(fn.name, `${field}.function.name`);
  toolNames.set(id, name);
  // Arguments are kept as the exact text the client sent (a model produced it).
  return [{ type: 'tool-call', id, name, args: str(fn.arguments, `${field}.function.arguments`) }];
}

function decodeToolMessage(
  m: Json,
  field: string,
  toolNames: Map<string, string>,
  dropped: DroppedField[],
): ToolResultPart {
  const callId = str(m.tool_call_id, `${field}.tool_call_id`);
  const content = decodeTextContent(m.content, `${field}.content`, dropped);
  // Chat Completions has no error flag on tool results.
  const part: ToolResultPart = { type: 'tool-result', callId, content, isError: false };
  const name = toolNames.get(callId);
  if (name !== undefined) part.name = name;
  return part;
}
