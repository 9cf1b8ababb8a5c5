// IR ChatResult → GenerateContentResponse for Gemini clients
// (https://ai.google.dev/api/generate-content#generatecontentresponse).
import type { ChatRequest, MediaSource, Part, ToolResultPart } from '../../src/ir/chat-request.ts';
import type { ChatResult, SafetyRating } from '../../src/ir/chat-result.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { jsonTextTooDeep } from '../shared/json-depth.ts';
import { ownExtensions } from '../shared/format-extensions.ts';
import { isObject, parseJsonObject, type Json } from '../shared/narrow.ts';
import { isSyntheticCallId } from './call-ids.ts';
import { geminiBlockReason, geminiFinishMessage, geminiFinishReason } from './gemini-finish-reason.ts';
import { geminiUsageMetadata } from './gemini-usage.ts';
import { groundingMetadataOf } from './grounding-metadata.ts';
import { codeExecutionResult, executableCode, inlineMedia } from './gemini-wire-parts.ts';
import { signatureOfReasoning } from './thought-signature.ts';

export function encodeGeminiResult(result: ChatResult, request: ChatRequest): Json {
  if (result.promptBlocked) {
    // A blocked prompt has no candidate at all; the reason is in promptFeedback.
    const feedback: Json = { blockReason: geminiBlockReason(result.promptBlocked.reason) };
    if (result.safety?.length) feedback.safetyRatings = safetyRatings(result.safety);
    const usageMetadata = geminiUsageMetadata(result.usage);
    return { promptFeedback: feedback, usageMetadata, modelVersion: request.model, responseId: result.id };
  }
  const usageMetadata = geminiUsageMetadata(result.usage);
  const parts = encodeResultParts(result.parts, request.reasoning?.includeThoughts === true, isEnumOutput(request));
  const candidate: Json = {};
  if (parts.length > 0) candidate.content = { parts, role: 'model' };
  candidate.finishReason = geminiFinishReason(result.finish);
  const message = geminiFinishMessage(result.finish);
  if (message !== undefined) candidate.finishMessage = message;
  candidate.index = 0;
  if (result.safety?.length) candidate.safetyRatings = safetyRatings(result.safety);
  const citations = citationSources(result.parts);
  if (citations.length > 0) candidate.citationMetadata = { citationSources: citations };
  const grounding = groundingMetadataOf(result.parts);
  if (grounding) candidate.groundingMetadata = grounding;
  return { candidates: [candidate], usageMetadata, modelVersion: request.model, responseId: result.id };
}

export const isEnumOutput = (request: ChatRequest): boolean =>
  ownExtensions(request, 'gemini').responseMimeType === 'text/x.enum';

/** `text/x.enum` answers with the bare value; an upstream asked for a JSON string sends it quoted. */
export function unquoteEnum(text: string): string {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'string' ? v : text;
  } catch {
    return text;
  }
}

/**
 * Thoughts are sent only when the request asked for them (thinkingConfig.includeThoughts);
 * their signature is always kept, on the part that follows, as Gemini itself places it.
 */
export function encodeResultParts(parts: Part[], includeThoughts: boolean, enumOutput: boolean): Json[] {
  const out: Json[] = [];
  let pending: string | undefined;
  const flushPending = (): void => {
    if (pending !== undefined) out.push({ text: '', thoughtSignature: pending });
    pending = undefined;
  };
  const push = (p: Json): void => {
    if (pending !== undefined) p.thoughtSignature = pending;
    pending = undefined;
    out.push(p);
  };
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    switch (p.type) {
      case 'text':
        push({ text: enumOutput ? unquoteEnum(p.text) : p.text });
        break;
      case 'refusal':
        push({ text: p.text });
        break;
      case 'reasoning':
        if (includeThoughts && p.text !== '') {
          flushPending();
          const sig = signatureOfReasoning(p, false);
          out.push(
            sig === undefined
              ? { text: p.text, thought: true }
              : { text: p.text, thought: true, thoughtSignature: sig },
          );
        } else {
          const sig = signatureOfReasoning(p, true);
          if (sig !== undefined) {
            flushPending();
            pending = sig;
          }
        }
        break;
      case 'tool-call':
        push({
          functionCall: functionCallOf(p.id, p.name, parseJsonObject(p.args, `arguments of tool call '${p.name}'`)),
        });
        break;
      case 'tool-result':
        push({
          functionResponse: functionResponseOf(
            p,
            p.name ?? '',
            isSyntheticCallId(p.callId, p.name ?? '') ? undefined : p.callId,
          ),
        });
        break;
      case 'image':
      case 'file':
        push(inlineMedia(p.source) ?? fileData(p.source));
        break;
      case 'code':
        push(executableCode(p));
        break;
      case 'code-result':
        push(codeExecutionResult(p));
        break;
      // Shown in the candidate's groundingMetadata (encodeGeminiResult), not as parts.
      case 'hosted-call':
      case 'hosted-result':
        break;
      default:
        assertNever(p, 'part');
    }
  }
  flushPending();
  return out;
}

/**
 * A functionCall for the client. Ids polygate synthesized are left out, as Gemini leaves them
 * out: the client's next request then numbers the call by its place in the conversation, so two
 * turns can never share an id. Real ids (Gemini's own, or another upstream's) are kept.
 */
export function functionCallOf(id: string, name: string, args: Json): Json {
  return isSyntheticCallId(id, name) ? { name, args } : { id, name, args };
}

/** Output media Gemini cannot inline (an https URL, a file id) is referenced, not dropped. */
function fileData(src: MediaSource): Json {
  const uri = src.kind === 'url' ? src.url : src.kind === 'file-id' ? src.fileId : '';
  const mimeType = src.kind === 'file-id' ? 'application/octet-stream' : (src.mediaType ?? 'application/octet-stream');
  return { fileData: { mimeType, fileUri: uri } };
}

/**
 * A tool result as FunctionResponse.response: a JSON object result as is, other text under
 * `content` (or `error` for a failed call, Gemini's convention); images go to `parts`.
 */
export function functionResponseOf(p: ToolResultPart, name: string, id: string | undefined): Json {
  const text = p.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  let response: Json | undefined;
  try {
    // Too deep to serialize again: sent as the plain text it arrived as.
    const v: unknown = jsonTextTooDeep(text) ? undefined : JSON.parse(text);
    if (isObject(v)) response = v;
  } catch {
    // plain text result
  }
  response ??= p.isError ? { error: text } : { content: text };
  const fr: Json = id === undefined ? { name, response } : { id, name, response };
  const media = p.content
    .flatMap((c) => (c.type === 'image' ? [inlineMedia(c.source)] : []))
    .filter((m) => m !== undefined);
  if (media.length > 0) fr.parts = media;
  return fr;
}

export const safetyRatings = (list: SafetyRating[]): Json[] =>
  list.map((r) =>
    r.blocked === undefined
      ? { category: r.category, probability: r.probability }
      : { category: r.category, probability: r.probability, blocked: r.blocked },
  );

/** URL citations as citationSources, offsets shifted to the candidate's whole text. */
function citationSources(parts: Part[]): Json[] {
  const out: Json[] = [];
  let offset = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.type !== 'text') continue;
    if (p.citations !== undefined)
      for (const c of p.citations) {
        if (c.kind !== 'url') continue;
        const s: Json = {};
        if (c.start !== undefined) s.startIndex = offset + c.start;
        if (c.end !== undefined) s.endIndex = offset + c.end;
        s.uri = c.url;
        if (c.title !== undefined) s.title = c.title;
        out.push(s);
      }
    offset += p.text.length;
  }
  return out;
}
