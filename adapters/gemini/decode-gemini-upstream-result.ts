// GenerateContentResponse from a Gemini upstream → IR ChatResult
// (https://ai.google.dev/api/generate-content#generatecontentresponse). Upstream input is read
// leniently: a field of the wrong type is skipped, not a 400 (the client did nothing wrong).
import type { Citation, Part } from '../../src/ir/chat-request.ts';
import type { ChatFinish, ChatResult, SafetyRating } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { firstAtIndexZero, isObject, type Json } from '../shared/narrow.ts';
import { syntheticCallId } from './call-ids.ts';
import { finishOfGemini } from './gemini-finish-reason.ts';
import { usageOfGemini } from './gemini-usage.ts';
import { pushSignature, pushThought } from './thought-signature.ts';

const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function decodeGeminiUpstreamResult(body: unknown): ChatResult {
  if (!isObject(body))
    throw new GatewayError('upstream', 'gemini upstream answered with a body that is not a JSON object');
  const result: ChatResult = {
    id: s(body.responseId) ?? '',
    model: s(body.modelVersion) ?? '',
    parts: [],
    finish: { reason: 'other', raw: '' },
    usage: usageOfGemini(body.usageMetadata),
  };
  const candidate = firstAtIndexZero(body.candidates);
  const feedback = isObject(body.promptFeedback) ? body.promptFeedback : undefined;
  if (!isObject(candidate)) {
    const reason = s(feedback?.blockReason);
    if (reason === undefined)
      throw new GatewayError('upstream', 'gemini upstream answered with no candidate and no blockReason');
    // The whole prompt was blocked: no candidate exists. Never a plain "stop".
    result.promptBlocked = { reason };
    result.finish = { reason: 'content-filter', raw: reason };
    const ratings = safetyOf(feedback?.safetyRatings);
    if (ratings) result.safety = ratings;
    return result;
  }
  const content = isObject(candidate.content) ? candidate.content : {};
  const { parts, toolCalls } = decodeCandidateParts(Array.isArray(content.parts) ? content.parts : []);
  result.parts = parts;
  const citations = citationsOf(candidate);
  const firstText = parts.find((p) => p.type === 'text');
  if (citations.length > 0 && firstText?.type === 'text') firstText.citations = citations;
  result.finish = finishOf(candidate, toolCalls > 0);
  const ratings = safetyOf(candidate.safetyRatings);
  if (ratings) result.safety = ratings;
  return result;
}

function finishOf(candidate: Json, hasToolCall: boolean): ChatFinish {
  const raw = s(candidate.finishReason);
  return raw === undefined ? { reason: 'other', raw: '' } : finishOfGemini(raw, hasToolCall);
}

/**
 * Candidate parts → IR parts: thoughts → reasoning (fragments merged), a signature on any other
 * part → an empty reasoning part before it, consecutive plain text parts → one text part.
 */
export function decodeCandidateParts(list: unknown[]): { parts: Part[]; toolCalls: number } {
  const parts: Part[] = [];
  let toolCalls = 0;
  for (const raw of list) {
    if (!isObject(raw)) continue;
    const signature = s(raw.thoughtSignature);
    const text = s(raw.text);
    if (text !== undefined && raw.thought === true) {
      pushThought(parts, text, signature);
      continue;
    }
    if (signature !== undefined) pushSignature(parts, signature);
    if (text !== undefined) {
      const prev = parts[parts.length - 1];
      if (prev?.type === 'text' && signature === undefined) prev.text += text;
      else if (text !== '') parts.push({ type: 'text', text });
    } else if (isObject(raw.functionCall)) {
      const fc = raw.functionCall;
      const name = s(fc.name) ?? '';
      parts.push({
        type: 'tool-call',
        id: s(fc.id) ?? syntheticCallId(name, toolCalls),
        name,
        args: JSON.stringify(isObject(fc.args) ? fc.args : {}),
      });
      toolCalls++;
    } else if (isObject(raw.executableCode)) {
      const ec = raw.executableCode;
      parts.push({ type: 'code', language: s(ec.language) === 'PYTHON' ? 'python' : '', code: s(ec.code) ?? '' });
    } else if (isObject(raw.codeExecutionResult)) {
      const cr = raw.codeExecutionResult;
      parts.push({ type: 'code-result', outcome: outcomeOf(s(cr.outcome)), output: s(cr.output) ?? '' });
    } else if (isObject(raw.inlineData)) {
      const d = raw.inlineData;
      const mediaType = s(d.mimeType) ?? 'application/octet-stream';
      const source = { kind: 'base64' as const, mediaType, data: s(d.data) ?? '' };
      parts.push(mediaType.startsWith('image/') ? { type: 'image', source } : { type: 'file', source });
    } else if (isObject(raw.fileData)) {
      const f = raw.fileData;
      const source = { kind: 'url' as const, url: s(f.fileUri) ?? '', mediaType: s(f.mimeType) };
      parts.push(source.mediaType?.startsWith('image/') ? { type: 'image', source } : { type: 'file', source });
    }
  }
  return { parts, toolCalls };
}

export function outcomeOf(raw: string | undefined): 'ok' | 'failed' | 'deadline-exceeded' | 'unspecified' {
  if (raw === 'OUTCOME_OK' || raw === 'OK') return 'ok';
  if (raw === 'OUTCOME_FAILED') return 'failed';
  if (raw === 'OUTCOME_DEADLINE_EXCEEDED') return 'deadline-exceeded';
  return 'unspecified';
}

export function safetyOf(v: unknown): SafetyRating[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  return v.filter(isObject).map((r) => {
    const rating: SafetyRating = { category: s(r.category) ?? '', probability: s(r.probability) ?? '' };
    if (typeof r.blocked === 'boolean') rating.blocked = r.blocked;
    return rating;
  });
}

/** citationSources (recitation) and grounding chunks (Google Search) as URL citations. */
function citationsOf(candidate: Json): Citation[] {
  const out: Citation[] = [];
  const cm = isObject(candidate.citationMetadata) ? candidate.citationMetadata : {};
  for (const c of Array.isArray(cm.citationSources) ? cm.citationSources : []) {
    if (!isObject(c) || typeof c.uri !== 'string') continue;
    const cit: Citation = { kind: 'url', url: c.uri };
    if (typeof c.title === 'string') cit.title = c.title;
    if (typeof c.startIndex === 'number') cit.start = c.startIndex;
    if (typeof c.endIndex === 'number') cit.end = c.endIndex;
    out.push(cit);
  }
  const gm = isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : {};
  for (const g of Array.isArray(gm.groundingChunks) ? gm.groundingChunks : []) {
    const web = isObject(g) && isObject(g.web) ? g.web : undefined;
    if (!web || typeof web.uri !== 'string') continue;
    out.push(
      typeof web.title === 'string' ? { kind: 'url', url: web.uri, title: web.title } : { kind: 'url', url: web.uri },
    );
  }
  return out;
}
