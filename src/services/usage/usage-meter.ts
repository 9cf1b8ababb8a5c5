// What a chat request is billed (docs/usage-and-tracing.md, "What is billed"): the upstream's own
// usage when it reported it whole, else what it reported so far plus the output already streamed
// (`partial`), else polygate's estimate (`estimated`). An upstream's numbers are data from
// outside: they are checked before they reach the ledger.
import type { Part } from '../../ir/chat-request.ts';
import type { ChatResult, Usage } from '../../ir/chat-result.ts';
import { assertNever, type StreamEvent } from '../../ir/stream-event.ts';
import { estimateTextTokens } from '../tokens/estimate-tokens.ts';

/** How a record's token counts were obtained. */
export type UsageSource = 'reported' | 'estimated' | 'partial';

export type MeteredUsage = { usage: Usage; source: UsageSource; warning?: string };

/**
 * The most tokens one request may report in any counter. Above every model's context window
 * (10 M at most today) and far below where sums stop being exact: 2^53 nano-dollars is 9 million
 * dollars, and this many tokens at 1,000 USD per million costs 2.4e13.
 */
export const maxReportedTokens = 2 ** 24;

const counters = ['inputTokens', 'outputTokens', 'reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** Why a reported usage cannot be billed as it is, or undefined when every counter is sane. */
export function usageProblem(u: Partial<Usage>): string | undefined {
  // Indexed: a `for…of` made an iterator and a result object per counter, on every request.
  for (let i = 0; i < counters.length; i++) {
    const c = counters[i];
    const v = u[c];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < 0) return `${c} is not a non-negative integer (${String(v)})`;
    if (v > maxReportedTokens) return `${c} ${v} is over ${maxReportedTokens}`;
  }
  return undefined;
}

/** A report with no tokens either way says nothing: no real request has an empty prompt. */
const empty = (u: Partial<Usage>): boolean => !u.inputTokens && !u.outputTokens;

/**
 * Text kept to estimate the streamed output: counted by the tokenizer up to this many characters,
 * the rest scaled from their tokens per character (memory stays bounded however long the answer).
 */
const sampleChars = 8192;

/** Watches one answer's IR events (relayed or translated) for what the upstream reported and streamed. */
export class StreamMeter {
  #final: Usage | undefined;
  #partial: Partial<Usage> | undefined;
  #sample = '';
  #chars = 0;

  observe(e: StreamEvent): void {
    switch (e.type) {
      case 'start':
        if (e.usage) this.#merge(e.usage);
        return;
      case 'usage':
        this.#merge(e.usage);
        return;
      case 'finish':
        this.#final = e.usage;
        return;
      case 'text-delta':
      case 'reasoning-delta':
      case 'refusal-delta':
        this.#text(e.text);
        return;
      case 'tool-input-start':
        this.#text(e.name);
        return;
      case 'tool-input-delta':
        this.#text(e.json);
        return;
      case 'hosted-call':
        // The model wrote the call's arguments (a query, a URL): output it was billed for.
        this.#text(JSON.stringify(e.part.input));
        return;
      case 'hosted-result':
      case 'text-citation':
        // What polygate's own search or fetch returned: no upstream output.
        return;
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-signature':
      case 'reasoning-end':
      case 'tool-input-end':
      case 'error':
        return;
      default:
        assertNever(e, 'stream event');
    }
  }

  /** A whole answer (a JSON body): its usage as a stream's finish event, its text as streamed. */
  answered(result: Pick<ChatResult, 'usage' | 'parts'>): void {
    this.#final = result.usage;
    this.#text(answerText(result.parts));
  }

  /**
   * An answer too large to read (past upstream.max_answer_bytes, src/families/chat/relay-usage-tap.ts):
   * nothing reported can be read from it, so its output is estimated from all its bytes, its first
   * ones as the sample (JSON syntax included: an estimate, marked so, rather than no output at all).
   */
  unread(firstBytes: string, bytes: number): void {
    if (firstBytes === '') return;
    this.#text(firstBytes);
    this.#chars += Math.max(0, bytes - firstBytes.length);
  }

  /** The usage the finish event carried, if the stream got that far. */
  get final(): Usage | undefined {
    return this.#final;
  }

  /** Tokens of the output streamed so far, estimated from its text. */
  streamedTokens(): number {
    if (this.#chars === 0) return 0;
    const sampled = estimateTextTokens(this.#sample);
    return Math.ceil((sampled * this.#chars) / this.#sample.length);
  }

  /** What to bill once the stream has ended, however it ended. */
  settle(estimateInput: () => number): MeteredUsage {
    return settleUsage({ final: this.#final, partial: this.#partial }, () => this.streamedTokens(), estimateInput);
  }

  #merge(u: Partial<Usage>): void {
    this.#partial = { ...this.#partial };
    for (const c of counters) if (u[c] !== undefined) this.#partial[c] = u[c];
  }

  #text(s: string): void {
    this.#chars += s.length;
    if (this.#sample.length < sampleChars) this.#sample += s.slice(0, sampleChars - this.#sample.length);
  }
}

/** An answer's generated text, for an estimate of its output tokens. */
export const answerText = (parts: Part[]): string =>
  parts
    .map((p) =>
      p.type === 'text' || p.type === 'reasoning' || p.type === 'refusal'
        ? p.text
        : p.type === 'tool-call'
          ? p.name + p.args
          : '',
    )
    .join('');

/**
 * The usage to bill from what the upstream reported: its final usage when whole and sane; else
 * what it reported along the way (Anthropic's `message_start`) with at least the output streamed;
 * else an estimate of the prompt and of the output streamed.
 */
export function settleUsage(
  reported: { final?: Usage; partial?: Partial<Usage> },
  streamedTokens: () => number,
  estimateInput: () => number,
): MeteredUsage {
  const problems: string[] = [];
  const { final, partial } = reported;
  if (final && !empty(final)) {
    const problem = usageProblem(final);
    if (problem === undefined) return { usage: final, source: 'reported' };
    problems.push(problem);
  }
  const warning = (): { warning?: string } =>
    problems.length > 0 ? { warning: `upstream usage ignored: ${problems.join('; ')}` } : {};
  if (partial && partial.inputTokens) {
    const problem = usageProblem(partial);
    if (problem === undefined) {
      const usage: Usage = {
        ...partial,
        inputTokens: partial.inputTokens,
        outputTokens: Math.max(partial.outputTokens ?? 0, streamedTokens()),
      };
      return { usage, source: 'partial', ...warning() };
    }
    problems.push(problem);
  }
  return { usage: { inputTokens: estimateInput(), outputTokens: streamedTokens() }, source: 'estimated', ...warning() };
}
