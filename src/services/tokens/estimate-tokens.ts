// The one prompt-token estimate (key tpm reservations in src/services/access/key-limits.ts, `truncation`
// in src/services/sessions/truncate-conversation.ts). gpt-tokenizer's BPE costs grow faster than the
// square of a piece's length on text without spaces (a 300 KB body took 43 s on the event loop),
// so the tokenizer only ever sees short slices, and at most `tokenSample.chars` characters per
// estimate: every text is counted exactly while the request's text fits that budget; past it each
// text is estimated from slices taken at fixed offsets in it (see `sampled`). Slice counts are
// memoized (src/services/tokens/slice-memo.ts): a client that resends its conversation every turn
// has only the new text's slices tokenized.
// gpt-tokenizer builds its vocabulary when loaded (~130 ms of CPU): it is required at the first
// slice counted, so a gateway whose keys have no tpm limit and whose upstreams report their usage
// never loads it.
import { createRequire } from 'node:module';
import type { ChatRequest, Message, Part } from '../../ir/chat-request.ts';
import { assertNever } from '../../ir/stream-event.ts';
import { SliceMemo } from './slice-memo.ts';

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
type GptTokenizer = typeof import('gpt-tokenizer');
let gptTokenizer: GptTokenizer | undefined;
/**
 * gpt-tokenizer, loaded at its first use (synchronously: an estimate is counted in the middle of
 * a request) and once per process for every user of it (the local speech engine's transcripts too).
 */
export const tokenizer = (): GptTokenizer =>
  (gptTokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as GptTokenizer);
const countPlain: SliceCounter = (text) => tokenizer().countTokens(text, plainText);

/**
 * The request's total: `estimateRequest(request).total`. While the request's text fits the sample
 * (the common case) every text is counted exactly, and the total is summed as the texts are walked,
 * with no list of them and no per-message arrays (~1.8 KB a request less; bench/RESULTS.md,
 * "Session 13"); past it, the sampled estimate needs the list.
 */
export function estimateTokens(request: ChatRequest, count: SliceCounter = countPlain): number {
  // Indexed loops: an estimate runs once a request, often before V8 optimizes it, and a `for…of`
  // there makes an iterator and a result object per item (1.1 KB a request in the profile).
  const { system, messages } = request;
  const budget = tokenSample.chars;
  // The characters, up to the budget only: a long conversation (a coding CLI's) hands over at its
  // first texts instead of being walked twice. (A hosted tool's part is stringified here and again
  // below: rare, and small while the request fits.)
  let chars = 0;
  for (let i = 0; i < system.length && chars <= budget; i++) chars += system[i].text.length;
  for (let i = 0; i < messages.length && chars <= budget; i++) {
    const parts = messages[i].parts;
    for (let j = 0; j < parts.length; j++) chars += partSum(parts[j], undefined, count);
  }
  if (chars > budget) return estimateRequest(request, count).total;
  // The same sums as estimateRequest's, rounded as it rounds them: the system's, then each
  // message's fixed cost and its texts' tokens.
  const memo = memoOf(count);
  let total = 0;
  for (let i = 0; i < system.length; i++) total += countSliced(system[i].text, memo, count);
  total = Math.round(total);
  for (let i = 0; i < messages.length; i++) {
    const parts = messages[i].parts;
    let n = perMessage;
    for (let j = 0; j < parts.length; j++) n += partSum(parts[j], memo, count);
    total += Math.round(n);
  }
  return total;
}

export function estimateRequest(request: ChatRequest, count: SliceCounter = countPlain): TokenEstimate {
  // slot -1: the system prompt; i >= 0: message i. Indexed loops, as in estimateTokens: this is
  // every long conversation's estimate.
  const texts: { slot: number; text: string }[] = [];
  const fixed = new Array<number>(request.messages.length).fill(perMessage);
  for (let i = 0; i < request.system.length; i++) texts.push({ slot: -1, text: request.system[i].text });
  for (let i = 0; i < request.messages.length; i++) {
    const parts = request.messages[i].parts;
    for (let j = 0; j < parts.length; j++) fixed[i] += collect(parts[j], i, texts);
  }
  const tokens = countTexts(texts, memoOf(count), count);
  let system = 0;
  const messages = fixed;
  for (let i = 0; i < texts.length; i++) {
    const slot = texts[i].slot;
    if (slot < 0) system += tokens[i];
    else messages[slot] += tokens[i];
  }
  // Sampled counts are fractions: rounded per message, not per text, and to the nearest, not up,
  // which would add half a token per text (6 % on a conversation of many short parts).
  system = Math.round(system);
  let total = system;
  for (let i = 0; i < messages.length; i++) total += messages[i] = Math.round(messages[i]);
  return { system, messages, total };
}

/** One memo per counter: the tests' spies each start empty, and never see the tokenizer's counts. */
const memos = new WeakMap<SliceCounter, SliceMemo>();
function memoOf(count: SliceCounter): SliceMemo {
  let memo = memos.get(count);
  if (!memo) memos.set(count, (memo = new SliceMemo()));
  return memo;
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
    case 'tool-result': {
      let n = 0;
      for (let i = 0; i < p.content.length; i++) n += collect(p.content[i], slot, texts);
      return n;
    }
    case 'code':
      texts.push({ slot, text: p.code });
      return 0;
    case 'code-result':
      texts.push({ slot, text: p.output });
      return 0;
    case 'hosted-call':
    case 'hosted-result':
      texts.push({ slot, text: hostedText(p) });
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

/**
 * The same texts as `collect`'s, summed instead of listed: their characters (no memo), or their
 * exact tokens plus the part's fixed cost. A function of its own rather than one sink object for
 * `collect` to fill: that sink (three ways of adding behind one call, inlined everywhere) made
 * estimateTokens slower than the list it replaced (bench/RESULTS.md, "The estimate's CPU").
 */
function partSum(p: Part, memo: SliceMemo | undefined, count: SliceCounter): number {
  switch (p.type) {
    case 'text':
    case 'reasoning':
    case 'refusal':
      return size(p.text, memo, count);
    case 'tool-call':
      return size(p.name, memo, count) + size(p.args, memo, count);
    case 'tool-result': {
      let n = 0;
      for (let i = 0; i < p.content.length; i++) n += partSum(p.content[i], memo, count);
      return n;
    }
    case 'code':
      return size(p.code, memo, count);
    case 'code-result':
      return size(p.output, memo, count);
    case 'hosted-call':
    case 'hosted-result':
      return size(hostedText(p), memo, count);
    case 'image':
      return memo === undefined ? 0 : perMedia;
    case 'file':
      if (p.source.kind !== 'text') return memo === undefined ? 0 : perMedia;
      return size(p.source.text, memo, count);
    default:
      return assertNever(p, 'part');
  }
}

const size = (text: string, memo: SliceMemo | undefined, count: SliceCounter): number =>
  memo === undefined ? text.length : countSliced(text, memo, count);

/** About what an upstream reads of a hosted tool's part (adapters/shared/hosted-part-text.ts). */
const hostedText = (p: Extract<Part, { type: 'hosted-call' | 'hosted-result' }>): string =>
  JSON.stringify(p.type === 'hosted-call' ? p.input : (p.page ?? p.sources));

/** Counts text in slices, each cut before a space where one is near its end, so few words are split. */
function countSliced(text: string, memo: SliceMemo, count: SliceCounter): number {
  let n = 0;
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + tokenSample.slice);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      // The next slice starts with the space: o200k counts a word with its leading space.
      if (space > at + tokenSample.slice / 2) end = space;
    }
    n += memo.count(text.slice(at, end), count);
    at = end;
  }
  return n;
}

/** Each text's tokens: exact (sliced) while all the text fits the sample, else sampled. */
function countTexts(texts: { text: string }[], memo: SliceMemo, count: SliceCounter): number[] {
  const total = texts.reduce((n, t) => n + t.text.length, 0);
  if (total <= tokenSample.chars) return texts.map((t) => countSliced(t.text, memo, count));
  return sampled(texts, total, memo, count);
}

const sampleSlices = Math.floor(tokenSample.chars / tokenSample.slice);

/**
 * Past the budget, slices are taken every `stride` characters, at offsets 0, stride, 2·stride…
 * of each text at least a stride long (each slice's tokens per character stand for the stride it
 * starts), and of the shorter texts laid end to end (each text holding such an offset is counted
 * from its start, and the mean of their tokens per character stands for all the short texts).
 * The stride is `slice` times the smallest power of two that keeps the slices within the
 * budget: a conversation that grows by a turn keeps its stride, and so its slices, which the memo
 * answers; when the stride doubles, the long texts' new offsets are a subset of the old ones.
 * Counting every short text instead would let many short messages send all their text to the
 * tokenizer; they are sampled like the rest.
 */
function sampled(texts: { text: string }[], total: number, memo: SliceMemo, count: SliceCounter): number[] {
  let stride = tokenSample.slice * 2 ** Math.max(0, Math.ceil(Math.log2(total / tokenSample.chars)));
  while (slicesAt(texts, stride) > sampleSlices) stride *= 2;
  const tokens = new Array<number>(texts.length).fill(0);
  let shortAt = 0; // where this short text starts, in the short texts laid end to end
  let next = 0; // the next slice's offset there
  let ratios = 0; // the sampled short texts' tokens per character, summed
  let sampledShort = 0;
  const short: number[] = [];
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i].text;
    if (text.length >= stride) {
      for (let at = 0; at < text.length; at += stride) {
        const s = text.slice(at, at + tokenSample.slice);
        tokens[i] += (memo.count(s, count) * Math.min(stride, text.length - at)) / s.length;
      }
      continue;
    }
    short.push(i);
    shortAt += text.length;
    if (next >= shortAt) continue;
    // The text holding the offset (at most one: it is shorter than the stride), from its start:
    // a fragment cut mid-word would count more tokens per character than the text has.
    const s = text.slice(0, tokenSample.slice);
    ratios += memo.count(s, count) / s.length;
    sampledShort++;
    next += stride;
  }
  // Texts are picked in proportion to their length, so the mean of their ratios is per character.
  const ratio = sampledShort > 0 ? ratios / sampledShort : 0;
  for (let k = 0; k < short.length; k++) tokens[short[k]] = texts[short[k]].text.length * ratio;
  return tokens;
}

/** How many slices a stride takes: per long text, and over the short texts laid end to end. */
function slicesAt(texts: { text: string }[], stride: number): number {
  let n = 0;
  let short = 0;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i].text;
    if (text.length >= stride) n += Math.ceil(text.length / stride);
    else short += text.length;
  }
  return n + Math.ceil(short / stride);
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

/** Tokens of one text (an answer's streamed text): exact while it fits the sample, else sampled. */
export function estimateTextTokens(text: string, count: SliceCounter = countPlain): number {
  if (text.length === 0) return 0;
  return Math.round(countTexts([{ text }], memoOf(count), count)[0]);
}
