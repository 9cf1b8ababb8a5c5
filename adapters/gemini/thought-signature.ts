// Gemini `thoughtSignature`: an opaque base64 string on a part that the caller must send back on
// the same part in the next turn (https://ai.google.dev/gemini-api/docs/thought-signatures).
//
// The IR keeps signatures on reasoning parts (ReasoningPart.signature, origin 'gemini'). A
// signature that sat on a text or functionCall part becomes an empty reasoning part placed just
// before that part, so an encoder re-attaches it to the part that follows.
//
// Reasoning from other providers (Anthropic thinking signatures, redacted thinking, OpenAI
// encrypted reasoning) has to survive a round trip through a Gemini client too, or the next turn
// fails upstream: it travels in thoughtSignature as an envelope (adapters/shared/reasoning-envelope.ts).
import type { Part, ReasoningPart } from '../../src/ir/chat-request.ts';
import { hasOpaque, openReasoning, sealReasoning } from '../shared/reasoning-envelope.ts';

export { hasOpaque } from '../shared/reasoning-envelope.ts';

/**
 * The thoughtSignature that carries a reasoning part's opaque data, or undefined if it has none.
 * `withText` puts the reasoning text in the envelope when no thought part will carry it.
 */
export function signatureOfReasoning(p: ReasoningPart, withText: boolean): string | undefined {
  if (p.origin === 'gemini' && p.redacted === undefined && p.encrypted === undefined) return p.signature;
  if (!hasOpaque(p)) return undefined;
  return sealReasoning(p, withText);
}

/** A reasoning part rebuilt from a thoughtSignature (and the thought text, if the part had one). */
export function reasoningOfSignature(signature: string, text: string): ReasoningPart {
  return openReasoning(signature, text) ?? { type: 'reasoning', text, signature, origin: 'gemini' };
}

/**
 * Appends a thought part (`thought: true`) as reasoning, merging streamed thought fragments: a
 * thought continues the previous reasoning part while that one has text but no opaque data yet
 * (Gemini sends the signature on the last fragment, or on the part after the thoughts).
 */
export function pushThought(parts: Part[], text: string, signature: string | undefined): void {
  const r: ReasoningPart =
    signature !== undefined ? reasoningOfSignature(signature, text) : { type: 'reasoning', text, origin: 'gemini' };
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
  target.origin = from.origin;
}
