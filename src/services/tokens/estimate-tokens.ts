// The one prompt-token estimate (key tpm reservations in src/services/access/key-limits.ts, `truncation`
// in src/services/sessions/truncate-conversation.ts). gpt-tokenizer's BPE costs grow faster than the
// square of a piece's length on text without spaces (a 300 KB body took 43 s on the event loop),
// so the tokenizer only ever sees short slices, and at most `tokenSample.chars` characters per
// estimate: every text is counted exactly while the request's text fits that budget; past it the
// tokens per character of slices spread evenly over all the text are applied to all of it.
import { countTokens } from 'gpt-tokenizer';
import type { ChatRequest, Message, Part } from '../../ir/chat-request.ts';
import { assertNever } from '../../ir/stream-event.ts';

/** At most `chars` characters reach the tokenizer per estimate, in slices of at most `slice` characters. */
export const tokenSample = { chars: 8192, slice: 128 };

/** A request's estimate: the system prompt, and each message (role and separators included). */
export type TokenEstimate = { system: number; messages: number[]; total: number };

/** What counts a slice; the tests pass a spy to see how much text reached the tokenizer. */
export type SliceCounter = (text: string) => number;

/** Per-message overhead of chat formatting (role and separators), as OpenAI's cookbook counts it. */
const perMessage = 4;
/** A flat cost for media (OpenAI bills a low-detail image at 85 tokens): nothing better is known before sending. */
const perMedia = 85;

/**
 * Special-token text (`<|endoftext|>`) in a prompt is ordinary text to count: gpt-tokenizer would
 * throw on it by default, turning a user's message into a 500.
 */
const plainText = { disallowedSpecial: new Set<string>() };
const countPlain: SliceCounter = (text) => countTokens(text, plainText);

export function estimateTokens(request: ChatRequest, count: SliceCounter = countPlain): number {
  return estimateRequest(request, count).total;
}

export function estimateRequest(request: ChatRequest, count: SliceCounter = countPlain): TokenEstimate {
  // slot -1: the system prompt; i >= 0: message i.
  const texts: { slot: number; text: string }[] = [];
  const fixed = new Array<number>(request.messages.length).fill(perMessage);
  for (const p of request.system) texts.push({ slot: -1, text: p.text });
  request.messages.forEach((m: Message, i) => {
    for (const p of m.parts) fixed[i] += collect(p, i, texts);
  });
  const tokensOf = tokenizer(texts, count);
  let system = 0;
  const messages = fixed;
  for (const t of texts) {
    const n = tokensOf(t.text);
    if (t.slot < 0) system += n;
    else messages[t.slot] += n;
  }
  return { system, messages, total: messages.reduce((a, b) => a + b, system) };
}

/** Pushes a part's texts; returns its fixed cost (media). */
function collect(p: Part, slot: number, texts: { slot: number; text: string }[]): number {
  switch (p.type) {
    case 'text':
    case 'reasoning':
    case 'refusal':
      texts.push({ slot, text: p.text });
      return 0;
    case 'tool-call':
      texts.push({ slot, text: p.name }, { slot, text: p.args });
      return 0;
    case 'tool-result':
      return p.content.reduce((n, c) => n + collect(c, slot, texts), 0);
    case 'code':
      texts.push({ slot, text: p.code });
      return 0;
    case 'code-result':
      texts.push({ slot, text: p.output });
      return 0;
    case 'image':
      return perMedia;
    case 'file':
      if (p.source.kind !== 'text') return perMedia;
      texts.push({ slot, text: p.source.text });
      return 0;
    default:
      return assertNever(p, 'part');
  }
}

/** Counts text in slices, each cut before a space where one is near its end, so few words are split. */
function countSliced(text: string, count: SliceCounter): number {
  let n = 0;
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + tokenSample.slice);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      // The next slice starts with the space: o200k counts a word with its leading space.
      if (space > at + tokenSample.slice / 2) end = space;
    }
    n += count(text.slice(at, end));
    at = end;
  }
  return n;
}

/** Exact (sliced) counts when all text fits the sample; else one tokens-per-character ratio for all of it. */
function tokenizer(texts: { text: string }[], count: SliceCounter): (text: string) => number {
  const total = texts.reduce((n, t) => n + t.text.length, 0);
  if (total <= tokenSample.chars) return (text) => countSliced(text, count);
  const slices = Math.floor(tokenSample.chars / tokenSample.slice);
  const stride = total / slices;
  let sampledChars = 0;
  let sampledTokens = 0;
  // Walks the texts as one virtual string, taking a slice at every stride.
  let base = 0;
  let k = 0;
  for (const { text } of texts) {
    for (let at = k * stride - base; at < text.length && k < slices; at = ++k * stride - base) {
      const s = text.slice(Math.floor(at), Math.floor(at) + tokenSample.slice);
      sampledChars += s.length;
      sampledTokens += count(s);
    }
    base += text.length;
  }
  const ratio = sampledChars > 0 ? sampledTokens / sampledChars : 0.25;
  return (text) => Math.ceil(text.length * ratio);
}

/**
 * A conversation's size in characters: its text, plus a flat 16 per part and 340 per media part
 * (the 85 tokens above, at 4 characters a token). Linear in the parts, copies nothing; what
 * echo's usage and the cap on stored chains (src/services/sessions/responses-session.ts) measure.
 */
export function conversationChars(messages: Message[]): number {
  const texts: { slot: number; text: string }[] = [];
  let n = 0;
  for (const m of messages) for (const p of m.parts) n += 16 + collect(p, 0, texts) * 4;
  return texts.reduce((k, t) => k + t.text.length, n);
}
