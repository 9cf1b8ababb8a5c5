// Client request `contents` / `systemInstruction` → IR messages
// (https://ai.google.dev/api/caching#Content, https://ai.google.dev/api/caching#Part).
// Validation follows the spec's field tables; every failure names the field as the client
// spelled it, e.g. `contents[1].parts[0].fileData`.
import type { FilePart, ImagePart, Message, Part, TextPart } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { arr, bool, obj, str, type Json } from '../shared/narrow.ts';
import { noteInto, openEnum } from '../shared/open-enum.ts';
import type { CallIdMatcher } from './call-ids.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import { noteUnknown, pick, valueOf } from './gemini-fields.ts';
import { pushSignature, pushThought } from './thought-signature.ts';

const roles = ['user', 'model', 'function', 'tool'] as const;
const dataFields = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
] as const;
type DataField = (typeof dataFields)[number];
/** `partMetadata` is the caller's own bookkeeping, never shown to the model; it is accepted and not forwarded. */
const partFields = [...dataFields, 'thought', 'thoughtSignature', 'partMetadata'] as const;
/**
 * Part fields the IR has no place for: data of server-side tools (toolCall, toolResponse) and
 * transcriptions only Gemini reads, and per-part hints (videoMetadata, mediaResolution…). A part
 * holding only such data is dropped; a hint beside known data is ignored; both are noted.
 */
const languages = ['LANGUAGE_UNSPECIFIED', 'PYTHON'] as const;
// The spec's Outcome enum, plus the short `OK` its example response shows.
const outcomes = ['OUTCOME_UNSPECIFIED', 'OUTCOME_OK', 'OUTCOME_FAILED', 'OUTCOME_DEADLINE_EXCEEDED', 'OK'] as const;
const outcomeMap = {
  OUTCOME_UNSPECIFIED: 'unspecified',
  OUTCOME_OK: 'ok',
  OK: 'ok',
  OUTCOME_FAILED: 'failed',
  OUTCOME_DEADLINE_EXCEEDED: 'deadline-exceeded',
} as const;
const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export function decodeContents(v: unknown, path: string, matcher: CallIdMatcher, dropped: DroppedField[]): Message[] {
  const list = arr(v, path);
  if (list.length === 0) throw invalid(path, `${path}: must contain at least one Content`);
  const out: Message[] = [];
  for (let i = 0; i < list.length; i++) {
    const m = decodeContent(list[i], `${path}[${i}]`, matcher, dropped);
    if (m !== undefined) out.push(m);
  }
  if (out.length === 0) throw invalid(path, `${path}: no Content polygate can read (see x-polygate-warnings)`);
  return out;
}

/** A role newer than polygate has no meaning to map to: the Content is left out (undefined), warned. */
function decodeContent(v: unknown, at: string, matcher: CallIdMatcher, dropped: DroppedField[]): Message | undefined {
  const c = obj(v, at);
  noteUnknown(c, ['parts', 'role'], at, dropped);
  const role = pick(c, 'role', at);
  // A known role is taken as is (openEnum's own first test), without its path or a note callback.
  const r =
    role.value === undefined
      ? 'user'
      : typeof role.value === 'string' && (roles as readonly string[]).includes(role.value)
        ? (role.value as (typeof roles)[number])
        : openEnum(role.value, roles, role.path, noteInto(dropped));
  if (r === undefined) return undefined;
  const parts = pick(c, 'parts', at);
  if (parts.value === undefined) throw invalid(parts.path, `${parts.path}: is required`);
  const list = arr(parts.value, parts.path);
  if (list.length === 0) throw invalid(parts.path, `${parts.path}: must contain at least one Part`);
  const out: Part[] = [];
  const partsPath = parts.path;
  for (let j = 0; j < list.length; j++) decodePart(list[j], `${partsPath}[${j}]`, matcher, out, dropped);
  // `function` and `tool` turns carry functionResponse parts: the IR puts tool results in user turns.
  return { role: r === 'model' ? 'assistant' : 'user', parts: out };
}

function decodePart(v: unknown, at: string, matcher: CallIdMatcher, out: Part[], dropped: DroppedField[]): void {
  const p = obj(v, at);
  const before = dropped.length;
  noteUnknown(p, partFields, at, dropped);
  const unknownData = dropped.length > before;
  // Which data fields the part holds, in the spec's order, read without a Picked each (a part
  // holds one; the other six are absent).
  let field: DataField | undefined;
  let second: DataField | undefined;
  for (let k = 0; k < dataFields.length; k++) {
    const f = dataFields[k];
    if (valueOf(p, f) === undefined) continue;
    if (field === undefined) field = f;
    else if (second === undefined) second = f;
  }
  const sig = valueOf(p, 'thoughtSignature');
  const signature = sig === undefined ? undefined : str(sig, pick(p, 'thoughtSignature', at).path);
  const thoughtValue = valueOf(p, 'thought');
  const thought = thoughtValue === undefined ? false : bool(thoughtValue, pick(p, 'thought', at).path);
  if (second !== undefined) {
    const path = pick(p, second, at).path;
    throw invalid(path, `${path}: a Part holds exactly one of ${dataFields.join(', ')}; found a second one`);
  }
  if (field === undefined) {
    if (signature !== undefined) return pushSignature(out, signature);
    if (unknownData) return;
    throw invalid(at, `${at}: a Part must hold one of ${dataFields.join(', ')}`);
  }
  const data = pick(p, field, at);
  if (field === 'text') {
    const text = str(data.value, data.path);
    if (thought) return pushThought(out, text, signature);
    if (signature !== undefined) pushSignature(out, signature);
    if (text !== '') out.push({ type: 'text', text });
    return;
  }
  if (thought) {
    const path = pick(p, 'thought', at).path;
    throw invalid(path, `${path}: only a text part can be a thought`);
  }
  if (signature !== undefined) pushSignature(out, signature);
  out.push(decodeData(field, data.value, data.path, matcher, dropped));
}

function decodeData(
  field: Exclude<DataField, 'text'>,
  value: unknown,
  at: string,
  matcher: CallIdMatcher,
  dropped: DroppedField[],
): Part {
  switch (field) {
    case 'inlineData':
      return decodeInlineData(value, at, dropped);
    case 'fileData':
      throw invalid(
        at,
        `${at}: fileData (fileUri) is not supported by this service; send audio, video, PDF and images as base64 inlineData`,
      );
    case 'functionCall': {
      const fc = obj(value, at);
      noteUnknown(fc, ['name', 'args', 'id'], at, dropped);
      const name = requiredName(fc, at);
      const args = pick(fc, 'args', at);
      const id = pick(fc, 'id', at);
      const callId = matcher.call(name, id.value === undefined ? undefined : str(id.value, id.path));
      return {
        type: 'tool-call',
        id: callId,
        name,
        args: JSON.stringify(args.value === undefined ? {} : obj(args.value, args.path)),
      };
    }
    case 'functionResponse':
      return decodeFunctionResponse(value, at, matcher, dropped);
    case 'executableCode': {
      const ec = obj(value, at);
      noteUnknown(ec, ['language', 'code'], at, dropped);
      const lang = pick(ec, 'language', at);
      if (lang.value === undefined) throw invalid(lang.path, `${lang.path}: is required`);
      // Code in a language newer than polygate is still code: its language is left unnamed, warned.
      const language = openEnum(lang.value, languages, lang.path, noteInto(dropped), () => 'LANGUAGE_UNSPECIFIED');
      const code = pick(ec, 'code', at);
      if (code.value === undefined) throw invalid(code.path, `${code.path}: is required`);
      return { type: 'code', language: language === 'PYTHON' ? 'python' : '', code: str(code.value, code.path) };
    }
    case 'codeExecutionResult': {
      const cr = obj(value, at);
      noteUnknown(cr, ['outcome', 'output'], at, dropped);
      const oc = pick(cr, 'outcome', at);
      if (oc.value === undefined) throw invalid(oc.path, `${oc.path}: is required`);
      const output = pick(cr, 'output', at);
      return {
        type: 'code-result',
        // An outcome newer than polygate is read as unspecified, warned.
        outcome:
          outcomeMap[
            openEnum(oc.value, outcomes, oc.path, noteInto(dropped), () => 'OUTCOME_UNSPECIFIED') ??
              'OUTCOME_UNSPECIFIED'
          ],
        output: output.value === undefined ? '' : str(output.value, output.path),
      };
    }
    default:
      return assertNever(field, 'part field');
  }
}

function decodeInlineData(value: unknown, at: string, dropped: DroppedField[]): ImagePart | FilePart {
  const blob = obj(value, at);
  noteUnknown(blob, ['mimeType', 'data', 'displayName'], at, dropped);
  const mt = pick(blob, 'mimeType', at);
  if (mt.value === undefined) throw invalid(mt.path, `${mt.path}: is required`);
  const mediaType = str(mt.value, mt.path);
  const d = pick(blob, 'data', at);
  if (d.value === undefined) throw invalid(d.path, `${d.path}: is required`);
  const data = str(d.value, d.path);
  if (!base64.test(data)) throw invalid(d.path, `${d.path}: must be base64`);
  const source = { kind: 'base64' as const, mediaType, data };
  return mediaType.startsWith('image/') ? { type: 'image', source } : { type: 'file', source };
}

function decodeFunctionResponse(value: unknown, at: string, matcher: CallIdMatcher, dropped: DroppedField[]): Part {
  const fr = obj(value, at);
  // `willContinue` / `scheduling` (Live API) and newer fields: noted.
  noteUnknown(fr, ['name', 'response', 'id', 'parts'], at, dropped);
  const name = requiredName(fr, at);
  const resp = pick(fr, 'response', at);
  if (resp.value === undefined) throw invalid(resp.path, `${resp.path}: is required`);
  const response = obj(resp.value, resp.path);
  const id = pick(fr, 'id', at);
  const callId = matcher.response(name, id.value === undefined ? undefined : str(id.value, id.path));
  // Gemini's convention: an `error` key (and no `output`) reports a failed call.
  const isError = response.error !== undefined && response.output === undefined;
  const fp = pick(fr, 'parts', at);
  const media =
    fp.value === undefined
      ? []
      : arr(fp.value, fp.path).map((x, k) => functionResponseImage(x, `${fp.path}[${k}]`, dropped));
  return {
    type: 'tool-result',
    callId,
    name,
    content: [{ type: 'text', text: JSON.stringify(response) }, ...media],
    isError,
  };
}

/** Multimodal function responses (FunctionResponsePart): images only, as the IR's tool results hold. */
function functionResponseImage(v: unknown, at: string, dropped: DroppedField[]): ImagePart {
  const p = obj(v, at);
  noteUnknown(p, ['inlineData'], at, dropped);
  const inline = pick(p, 'inlineData', at);
  if (inline.value === undefined) throw invalid(at, `${at}: only inlineData is supported in functionResponse parts`);
  const part = decodeInlineData(inline.value, inline.path, dropped);
  if (part.type !== 'image')
    throw invalid(inline.path, `${inline.path}: only images can be returned in functionResponse parts`);
  return part;
}

function requiredName(o: Json, at: string): string {
  const name = pick(o, 'name', at);
  if (name.value === undefined || name.value === '') throw invalid(name.path, `${name.path}: is required`);
  return str(name.value, name.path);
}

/** `systemInstruction` is a Content whose parts must all be text (the spec: "text only"). */
export function decodeSystemInstruction(v: unknown, path: string, dropped: DroppedField[]): TextPart[] {
  const c = obj(v, path);
  noteUnknown(c, ['parts', 'role'], path, dropped);
  const parts = pick(c, 'parts', path);
  if (parts.value === undefined) throw invalid(parts.path, `${parts.path}: is required`);
  return arr(parts.value, parts.path).map((p, j) => {
    const at = `${parts.path}[${j}]`;
    const part = obj(p, at);
    const text = valueOf(part, 'text');
    if (text === undefined || Object.keys(part).length !== 1)
      throw invalid(at, `${at}: systemInstruction accepts text parts only`);
    return { type: 'text', text: typeof text === 'string' ? text : str(text, pick(part, 'text', at).path) };
  });
}
