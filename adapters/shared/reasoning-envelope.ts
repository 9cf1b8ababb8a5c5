// Reasoning a provider produced must survive a round trip through a client of another format, or
// the next turn cannot continue on that provider (Anthropic rejects thinking without its
// signature, Gemini 3 function calls need their thought signature, OpenAI's encrypted reasoning
// is bound to its item id). A format with one opaque reasoning field (Gemini thoughtSignature,
// Responses encrypted_content) carries another provider's reasoning in it as an envelope: base64
// of a fixed prefix plus JSON. Real Gemini signatures are binary protobuf and OpenAI's encrypted
// content is its own base64 blob, so the prefix cannot collide.
import type { ReasoningPart } from '../../src/ir/chat-request.ts';
import { reasoningOriginOf } from '../../src/ir/wire-format.ts';
import { isObject } from './narrow.ts';

const MAGIC = 'polygate-sig/1:'; // 15 bytes: its base64 is a fixed 20-character prefix
const MAGIC_B64 = Buffer.from(MAGIC).toString('base64');

/** origin, signature, redacted, encrypted, text: short keys keep the token small. */
type Envelope = { o?: string; s?: string; r?: string; e?: string; t?: string };

/** Does the reasoning part hold opaque data a later turn needs? */
export const hasOpaque = (p: Pick<ReasoningPart, 'signature' | 'redacted' | 'encrypted'>): boolean =>
  p.signature !== undefined || p.redacted !== undefined || p.encrypted !== undefined;

/** The envelope for a reasoning part; `withText` puts the text in when nothing else will carry it. */
export function sealReasoning(p: ReasoningPart, withText: boolean): string {
  const env: Envelope = {
    o: p.origin,
    s: p.signature,
    r: p.redacted,
    e: p.encrypted,
    t: withText && p.text !== '' ? p.text : undefined,
  };
  return Buffer.from(MAGIC + JSON.stringify(env)).toString('base64');
}

export const isSealed = (token: string): boolean => token.startsWith(MAGIC_B64);

/** The reasoning part an envelope carries (text from `text` unless the envelope has it), or undefined if it is not one. */
export function openReasoning(token: string, text: string): ReasoningPart | undefined {
  if (!isSealed(token)) return undefined;
  const raw = Buffer.from(token, 'base64').toString('utf8');
  if (!raw.startsWith(MAGIC)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw.slice(MAGIC.length));
  } catch {
    return undefined;
  }
  if (!isObject(v)) return undefined;
  const s = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
  // An envelope naming no known origin holds data no upstream is known to accept: 'polygate'.
  const origin = reasoningOriginOf(v.o) ?? 'polygate';
  const part: ReasoningPart = { type: 'reasoning', text: text !== '' ? text : (s(v.t) ?? ''), origin };
  const [signature, redacted, encrypted] = [s(v.s), s(v.r), s(v.e)];
  if (signature !== undefined) part.signature = signature;
  if (redacted !== undefined) part.redacted = redacted;
  if (encrypted !== undefined) part.encrypted = encrypted;
  return part;
}
