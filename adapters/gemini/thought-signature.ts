// Gemini `thoughtSignature`: an opaque base64 string on a part that the caller must send back on
// the same part in the next turn (https://ai.google.dev/gemini-api/docs/thought-signatures).
//
// The IR keeps signatures on reasoning parts (ReasoningPart.signature, origin 'gemini'). A
// signature that sat on a text or functionCall part becomes an empty reasoning part placed just
// before that part, so an encoder re-attaches it to the part that follows.
//
// Reasoning from other providers (Anthropic thinking signatures, redacted thinking, OpenAI
// encrypted reasoning) has to survive a round trip through a Gemini client too, or the next turn
// fails upstream. Such reasoning travels in thoughtSignature as an envelope: base64 of a fixed
// prefix plus JSON. Real Gemini signatures are binary protobuf, so the prefix cannot collide.
import type { Part, ReasoningPart } from '../../src/ir/chat-request.ts';
import { isObject } from '../shared/narrow.ts';

const MAGIC = 'polygate-sig/1:'; // 15 bytes: its base64 is a fixed 20-character prefix
const MAGIC_B64 = Buffer.from(MAGIC).toString('base64');

type Envelope = { o?: string; s?: string; r?: string; e?: string; t?: string };

const isGeminiOrigin = (origin: string | undefined): boolean => origin === undefined || origin === 'gemini';

/**
 * The thoughtSignature that carries a reasoning part's opaque data, or undefined if it has none.
 * `withText` puts the reasoning text in the envelope when no thought part will carry it.
 */
export function signatureOfReasoning(p: ReasoningPart, withText: boolean): string | undefined {
  if (isGeminiOrigin(p.origin) && p.redacted === undefined && p.encrypted === undefined) return p.signature;
  if (p.signature === undefined && p.redacted === undefined && p.encrypted === undefined) return undefined;
  const env: Envelope = { o: p.origin, s: p.signature, r: p.redacted, e: p.encrypted, t: withText && p.text !== '' ? p.text : undefined };
  return Buffer.from(MAGIC + JSON.stringify(env)).toString('base64');
}

/** A reasoning part rebuilt from a thoughtSignature (and the thought text, if the part had one). */
export function reasoningOfSignature(signature: string, text: string): ReasoningPart {
  const env = signature.startsWith(MAGIC_B64) ? openEnvelope(signature) : undefined;
  if (!env) return { type: 'reasoning', text, signature, origin: 'gemini' };
  const part: ReasoningPart = { type: 'reasoning', text: text !== '' ? text : (env.t ?? '') };
  if (env.s !== undefined) part.signature = env.s;
  if (env.r !== undefined) part.redacted = env.r;
  if (env.e !== undefined) part.encrypted = env.e;
  if (env.o !== undefined) part.origin = env.o;
  return part;
}

function openEnvelope(signature: string): Envelope | undefined {
  const text = Buffer.from(signature, 'base64').toString('utf8');
  if (!text.startsWith(MAGIC)) return undefined;
  try {
    const v: unknown = JSON.parse(text.slice(MAGIC.length));
    if (!isObject(v)) return undefined;
    const s = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
    return { o: s(v.o), s: s(v.s), r: s(v.r), e: s(v.e), t: s(v.t) };
  } catch {
    return undefined;
  }
}

/** Does the reasoning part hold opaque data a later turn needs? */
export const hasOpaque = (p: ReasoningPart): boolean => p.signature !== undefined || p.redacted !== undefined || p.encrypted !== undefined;

/**
 * Appends a thought part (`thought: true`) as reasoning, merging streamed thought fragments: a
 * thought continues the previous reasoning part while that one has text but no opaque data yet
 * (Gemini sends the signature on the last fragment, or on the part after the thoughts).
 */
export function pushThought(parts: Part[], text: string, signature: string | undefined): void {
  const r: ReasoningPart = signature !== undefined ? reasoningOfSignature(signature, text) : { type: 'reasoning', text, origin: 'gemini' };
  const prev = parts[parts.length - 1];
  if (prev?.type === 'reasoning' && !hasOpaque(prev) && prev.text !== '') {
    mergeInto(prev, { ...r, text: prev.text + r.text });
    return;
  }
  if (r.text === '' && !hasOpaque(r)) return;
  parts.push(r);
}

/**
 * Records the signature of a non-thought part (text, functionCall…) as an empty reasoning part
 * before it. An envelope from another provider whose text travelled in thought parts re-joins
 * the reasoning those thought parts produced.
 */
export function pushSignature(parts: Part[], signature: string): void {
  const r = reasoningOfSignature(signature, '');
  const prev = parts[parts.length - 1];
  if (r.origin !== 'gemini' && r.text === '' && prev?.type === 'reasoning' && !hasOpaque(prev) && prev.text !== '') {
    mergeInto(prev, { ...r, text: prev.text });
    return;
  }
  parts.push(r);
}

function mergeInto(target: ReasoningPart, from: ReasoningPart): void {
  target.text = from.text;
  if (from.signature !== undefined) target.signature = from.signature;
  if (from.redacted !== undefined) target.redacted = from.redacted;
  if (from.encrypted !== undefined) target.encrypted = from.encrypted;
  if (from.origin !== undefined) target.origin = from.origin;
}
