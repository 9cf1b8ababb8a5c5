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
 * with no list of them and no per-message arrays (~1.5 KB a request less; bench/RESULTS.md,
 * "Session 13"); past it, the sampled estimate needs the list.
 */
export function estimateTokens(request: ChatRequest, count: SliceCounter = countPlain): number {
  // Indexed loops: an estimate runs once a request, often before V8 optimizes it, and a `for…of`
  // there makes an iterator and a result object per item (1.1 KB a request in the profile).
  const { system, messages } = request;
  const chars = new TextSink();
  for (let i = 0; i < system.length; i++) chars.add(-1, system[i].text);
  for (let i = 0; i < messages.length; i++) {
    const parts = messages[i].parts;
    for (let j = 0; j < parts.length; j++) collect(parts[j], 0, chars);
  }
  if (chars.n > tokenSample.chars) return estimateRequest(request, count).total;
  // The same sums as estimateRequest's, in its order: each message's fixed cost and its texts'
  // tokens (whole numbers, so exact in any order) rounded per message, the system's on its own.
  const tokens = new TextSink(undefined, memoOf(count), count);
  for (let i = 0; i < system.length; i++) tokens.add(-1, system[i].text);
  let total = Math.round(tokens.n);
  for (let i = 0; i < messages.length; i++) {
    const parts = messages[i].parts;
    tokens.n = perMessage;
    for (let j = 0; j < parts.length; j++) {
      // Read after collect has added the part's texts to `tokens.n`.
      const media = collect(parts[j], 0, tokens);
      tokens.n += media;
    }
    total += Math.round(tokens.n);
  }
  return total;
}

export function estimateRequest(request: ChatRequest, count: SliceCounter = countPlain): TokenEstimate {
  // slot -1: the system prompt; i >= 0: message i.
  const texts = new TextSink([]);
  const fixed = new Array<number>(request.messages.length).fill(perMessage);
  for (const p of request.system) texts.add(-1, p.text);
  request.messages.forEach((m: Message, i) => {
    for (const p of m.parts) fixed[i] += collect(p, i, texts);
  });
  const tokens = countTexts(texts.list!, memoOf(count), count);
  let system = 0;
  const messages = fixed;
  texts.list!.forEach((t, i) => {
    if (t.slot < 0) system += tokens[i];
    else messages[t.slot] += tokens[i];
  });
  // Sampled counts are fractions: rounded per message, not per text, and to the nearest, not up,
  // which would add half a token per text (6 % on a conversation of many short parts).
  const rounded = messages.map(Math.round);
  system = Math.round(system);
  return { system, messages: rounded, total: rounded.reduce((a, b) => a + b, system) };
}

/** One memo per counter: the tests' spies each start empty, and never see the tokenizer's counts. */
const memos = new WeakMap<SliceCounter, SliceMemo>();
function memoOf(count: SliceCounter): SliceMemo {
  let memo = memos.get(count);
  if (!memo) memos.set(count, (memo = new SliceMemo()));
  return memo;
}

/**
 * Where `collect` puts a part's texts (slot -1 is the system prompt, i >= 0 message i): kept in
 * `list` (the sampled estimate needs them all), or summed in `n`, as characters or, with a memo,
 * as tokens counted exactly (in slices, through the memo). One class for the three, so `collect`
 * sees one kind of sink (three classes made its call to `add` polymorphic: 2-3× the CPU of a
 * repeated estimate, bench/estimate-micro.ts).
 */
class TextSink {
  n = 0;
  readonly list: { slot: number; text: string }[] | undefined;
  readonly #memo: SliceMemo | undefined;
  readonly #count: SliceCounter | undefined;
  constructor(list?: { slot: number; text: string }[], memo?: SliceMemo, count?: SliceCounter) {
    this.list = list;
    this.#memo = memo;
    this.#count = count;
  }
  add(slot: number, text: string): void {
    if (this.list !== undefined) this.list.push({ slot, text });
    else if (this.#memo !== undefined) this.n += countSliced(text, this.#memo, this.#count!);
    else this.n += text.length;
  }
}

/** Gives a part's texts to `sink`; returns its fixed cost (media). */
function collect(p: Part, slot: number, sink: TextSink): number {
  switch (p.type) {
    case 'text':
    case 'reasoning':
    case 'refusal':
      sink.add(slot, p.text);
      return 0;
    case 'tool-call':
      sink.add(slot, p.name);
      sink.add(slot, p.args);
      return 0;
    case 'tool-result':
      return p.content.reduce((n, c) => n + collect(c, slot, sink), 0);
    case 'code':
      sink.add(slot, p.code);
      return 0;
    case 'code-result':
      sink.add(slot, p.output);
      return 0;
    case 'hosted-call':
    case 'hosted-result':
      // About what an upstream reads of it (adapters/shared/hosted-part-text.ts).
      sink.add(slot, JSON.stringify(p.type === 'hosted-call' ? p.input : (p.page ?? p.sources)));
      return 0;
    case 'image':
      return perMedia;
    case 'file':
      if (p.source.kind !== 'text') return perMedia;
      sink.add(slot, p.source.text);
      return 0;
    default:
      return assertNever(p, 'part');
  }
}

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
  texts.forEach(({ text }, i) => {
    if (text.length >= stride) {
      for (let at = 0; at < text.length; at += stride) {
        const s = text.slice(at, at + tokenSample.slice);
        tokens[i] += (memo.count(s, count) * Math.min(stride, text.length - at)) / s.length;
      }
      return;
    }
    short.push(i);
    shortAt += text.length;
    if (next >= shortAt) return;
    // The text holding the offset (at most one: it is shorter than the stride), from its start:
    // a fragment cut mid-word would count more tokens per character than the text has.
    const s = text.slice(0, tokenSample.slice);
    ratios += memo.count(s, count) / s.length;
    sampledShort++;
    next += stride;
  });
  // Texts are picked in proportion to their length, so the mean of their ratios is per character.
  const ratio = sampledShort > 0 ? ratios / sampledShort : 0;
  for (const i of short) tokens[i] = texts[i].text.length * ratio;
  return tokens;
}

/** How many slices a stride takes: per long text, and over the short texts laid end to end. */
function slicesAt(texts: { text: string }[], stride: number): number {
  let n = 0;
  let short = 0;
  for (const { text } of texts) {
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
  const chars = new TextSink();
  let n = 0;
  for (const m of messages) for (const p of m.parts) n += 16 + collect(p, 0, chars) * 4;
  return chars.n + n;
}

/** Tokens of one text (an answer's streamed text): exact while it fits the sample, else sampled. */
export function estimateTextTokens(text: string, count: SliceCounter = countPlain): number {
  if (text.length === 0) return 0;
  return Math.round(countTexts([{ text }], memoOf(count), count)[0]);
}
