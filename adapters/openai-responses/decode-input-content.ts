// Content of `message` input items → IR parts
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
// User turns carry input_text / input_image / input_file; assistant turns replay earlier output
// (output_text with annotations, refusal; a plain string or input_text is accepted too, as the
// EasyInputMessage shape allows); system and developer turns are text only, because the IR's
// `system` is a list of text parts.
import type { Citation, FilePart, ImagePart, MediaSource, RefusalPart, TextPart } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, isObject, obj, str, type Json } from '../shared/narrow.ts';
import { isHttpUrl, parseDataUrl } from '../shared/data-url.ts';
import type { DecodeNotes } from './decode-notes.ts';
import { absent, missing, required } from './responses-validate.ts';
import { nearestDetail, noteInto, openEnum } from '../shared/open-enum.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { citationOfAnnotation } from './citation-of-annotation.ts';

export type UserContent = TextPart | ImagePart | FilePart;
export type AssistantContent = TextPart | RefusalPart;

// output_text in a user turn is text all the same (a client replaying items into the wrong role).
const userTypes = ['input_text', 'output_text', 'input_image', 'input_file'] as const;
const assistantTypes = ['output_text', 'refusal', 'input_text'] as const;

/**
 * A content list's parts, one per entry of an `allowed` type, made by `decode`; the string
 * shorthand is one text part. Every entry must be an object with a `type` (checked for all before
 * any is decoded). A type outside `allowed` (input_audio, a type newer than polygate) is no error:
 * it is noted as dropped and every upstream encoder names it in a warning.
 */
function contentParts<T extends string, R>(
  content: unknown,
  param: string,
  allowed: readonly T[],
  notes: DecodeNotes,
  decode: (type: T, c: Json, p: string) => R,
): (R | TextPart)[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const list = arr(content, param).map((raw, j) => {
    const p = `${param}[${j}]`;
    const c = obj(raw, p);
    if (absent(c.type)) throw missing(`${p}.type`);
    return { c, p };
  });
  return list.flatMap(({ c, p }) => {
    const t = str(c.type, `${p}.type`);
    if ((allowed as readonly string[]).includes(t)) return [decode(t as T, c, p)];
    notes.dropped.push({ field: p, value: t });
    return [];
  });
}

const textOf = (c: Json, p: string): TextPart => ({ type: 'text', text: required(c.text, `${p}.text`, str) });

export const decodeUserContent = (content: unknown, param: string, notes: DecodeNotes): UserContent[] =>
  contentParts(content, param, userTypes, notes, (t, c, p): UserContent => {
    switch (t) {
      case 'input_text':
      case 'output_text':
        return textOf(c, p);
      case 'input_image':
        return decodeImage(c, p, notes);
      case 'input_file':
        return decodeFile(c, p);
      default:
        return assertNever(t, 'content type');
    }
  });

export const decodeAssistantContent = (content: unknown, param: string, notes: DecodeNotes): AssistantContent[] =>
  contentParts(content, param, assistantTypes, notes, (t, c, p): AssistantContent => {
    switch (t) {
      case 'output_text': {
        const part = textOf(c, p);
        const citations = decodeAnnotations(c.annotations, `${p}.annotations`);
        if (citations.length > 0) part.citations = citations;
        return part;
      }
      case 'input_text':
        return textOf(c, p);
      case 'refusal':
        return { type: 'refusal', text: required(c.refusal, `${p}.refusal`, str) };
      default:
        return assertNever(t, 'content type');
    }
  });

/** The IR's system prompt is text: text parts are kept, anything else is dropped with a warning. */
export const decodeSystemContent = (content: unknown, param: string, notes: DecodeNotes): TextPart[] =>
  contentParts(content, param, ['input_text', 'output_text'] as const, notes, (_, c, p) => textOf(c, p));

/** `image_url` (a URL or a base64 data URL) or `file_id`; `detail` defaults to `auto`. */
function decodeImage(c: Json, p: string, notes: DecodeNotes): ImagePart {
  // 'original' (ImageDetail in node_modules/openai/resources/responses/responses.d.ts) keeps the
  // full resolution: 'high' is the nearest other formats have. A newer word is read as the level
  // it most likely means, or left to the upstream, warned.
  const given = absent(c.detail)
    ? undefined
    : openEnum(
        c.detail,
        ['auto', 'low', 'high', 'original'] as const,
        `${p}.detail`,
        noteInto(notes.dropped),
        nearestDetail,
      );
  const detail = given === 'original' ? 'high' : given;
  let source: MediaSource;
  if (!absent(c.image_url)) source = urlSource(str(c.image_url, `${p}.image_url`), `${p}.image_url`);
  else if (!absent(c.file_id)) source = { kind: 'file-id', fileId: str(c.file_id, `${p}.file_id`) };
  else throw invalid(p, `Invalid '${p}': an input_image needs either 'image_url' or 'file_id'.`);
  const part: ImagePart = { type: 'image', source };
  if (detail) part.detail = detail;
  return part;
}

/** `file_data` (a base64 data URL), `file_id` or `file_url`, with an optional `filename`. */
function decodeFile(c: Json, p: string): FilePart {
  let source: MediaSource;
  if (!absent(c.file_data)) {
    const d = parseDataUrl(str(c.file_data, `${p}.file_data`));
    if (!d)
      throw invalid(
        `${p}.file_data`,
        `Invalid '${p}.file_data': expected a base64 data URL (data:<media type>;base64,<data>).`,
      );
    source = { kind: 'base64', mediaType: d.mediaType, data: d.data };
  } else if (!absent(c.file_id)) source = { kind: 'file-id', fileId: str(c.file_id, `${p}.file_id`) };
  else if (!absent(c.file_url)) source = urlSource(str(c.file_url, `${p}.file_url`), `${p}.file_url`);
  else throw invalid(p, `Invalid '${p}': an input_file needs 'file_data', 'file_id' or 'file_url'.`);
  const part: FilePart = { type: 'file', source };
  if (!absent(c.filename)) part.filename = str(c.filename, `${p}.filename`);
  return part;
}

function urlSource(url: string, param: string): MediaSource {
  const d = parseDataUrl(url);
  if (d) return { kind: 'base64', mediaType: d.mediaType, data: d.data };
  if (isHttpUrl(url)) return { kind: 'url', url };
  throw invalid(param, `Invalid '${param}'. Expected a valid URL, but got a value with an invalid format.`);
}

/** A client's annotations must be objects; the kinds no other format can cite stay behind. */
function decodeAnnotations(v: unknown, param: string): Citation[] {
  if (absent(v)) return [];
  return arr(v, param).flatMap((raw, k) => {
    if (!isObject(raw)) throw invalid(`${param}[${k}]`, `Invalid type for '${param}[${k}]': expected an object.`);
    return citationOfAnnotation(raw) ?? [];
  });
}
