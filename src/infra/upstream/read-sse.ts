import { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { UpstreamStreamDecoder } from '../../../adapters/shared/chat-adapter.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import { answerTooLarge, defaultMaxAnswerBytes } from './upstream-request.ts';
import { Utf8Reads } from './utf8-reads.ts';

export type SseFeed = {
  /** Parses one chunk of the byte stream; events it completes go to `onEvent` at once. */
  feed(chunk: Uint8Array | string): void;
  /** The stream ended: a last event without its blank line is parsed, then the decoder's own end. */
  end(): void;
};

/** `upstream.max_answer_bytes` and the provider the error names. */
export type EventBound = { max: number; provider: string };

/**
 * The one SSE reader of upstream streams (eventsource-parser and the format's stream decoder),
 * for translated calls and, push by push, for the relay's usage tap (src/families/chat/pass-through.ts):
 * nothing is buffered beyond the event being parsed, and that is bounded: eventsource-parser keeps
 * an event until its blank line, so past `bound.max` bytes fed since the last event came out
 * (`upstream.max_answer_bytes`) `feed` throws the upstream's failure (one endless line would
 * otherwise grow without end). Counted per chunk (one add, one compare): the bound may be passed
 * by at most one chunk.
 */
export function sseFeed(
  decoder: UpstreamStreamDecoder,
  onEvent: (ev: StreamEvent) => void,
  bound: EventBound | undefined,
): SseFeed {
  const max = bound?.max ?? defaultMaxAnswerBytes;
  /** Bytes (a string chunk: its length) fed since the parser last gave out an event. */
  let pending = 0;
  const parser = createParser({
    onEvent: (e) => {
      pending = 0;
      // The parser's own event (its `event` and `data`, and an `id` no decoder reads): decoders
      // only read it, so it is not copied (issue #28).
      const out = decoder.push(e);
      for (let i = 0; i < out.length; i++) onEvent(out[i]);
    },
  });
  const text = new Utf8Reads();
  return {
    feed: (chunk) => {
      pending += chunk.length;
      parser.feed(typeof chunk === 'string' ? chunk : text.decode(chunk));
      if (pending > max) throw answerTooLarge(bound?.provider ?? 'upstream', max, 'an SSE event');
    },
    end: () => {
      parser.reset({ consume: true });
      const out = decoder.end();
      for (let i = 0; i < out.length; i++) onEvent(out[i]);
    },
  };
}

/**
 * An event iterator that can also hand over, without waiting, every event already decoded: a
 * consumer that does (src/families/chat/pipe-stream.ts) encodes all the events of one upstream
 * read and writes them at once.
 */
export interface SseEvents extends AsyncIterableIterator<StreamEvent> {
  /** The next event decoded and not yet taken, without waiting (none: undefined). No array per read. */
  nextReady(): StreamEvent | undefined;
  /**
   * Instead of a `next()` promise per wait: `wake` is called (in a microtask of its own, never
   * inside the body's callback) when events are ready or the stream is over; the consumer then
   * takes them with `nextReady` and asks `finished`. `next()` is not used after it (issue #28:
   * a wait by promise and await allocates ~0.4 KB, one per upstream read when chunks come apart).
   */
  onReady(wake: () => void): void;
  /** After `nextReady()` gave nothing: whether the stream is over. A failure (without `onError`) is thrown here, once. */
  finished(): boolean;
}

/**
 * Past this many decoded events not yet taken, the upstream body is paused (and undici stops
 * reading its socket once its own buffer is full): a client that reads slowly slows the upstream,
 * and memory stays bounded.
 */
const MAX_READY = 64;

/**
 * Turns an upstream SSE byte stream into IR events through a format's stream decoder. A Readable
 * (undici's body) is read push by push from its 'data' events, decoded synchronously, with no
 * stream iterator or generator per chunk (issue #28); anything else is iterated.
 * `onError`: a read that fails (socket cut, idle timeout, a decoder that throws) becomes this
 * event, the last; without it the iterator rejects.
 */
export function readSse(
  body: AsyncIterable<Uint8Array | string>,
  decoder: UpstreamStreamDecoder,
  onError?: (e: unknown) => StreamEvent,
  bound?: EventBound,
): SseEvents {
  const readable = isReadable(body) ? body : Readable.from(body, { objectMode: false });
  const events = new PushedSse(readable, decoder, onError, bound);
  readable.on('data', (chunk: Uint8Array | string) => events.data(chunk));
  readable.on('end', () => events.end());
  readable.on('error', (e) => events.fail(e));
  // Destroyed without an error or an end (what a for-await on it would call a premature close).
  readable.on('close', () => events.fail(new Error('upstream stream closed before its end')));
  return events;
}

const isReadable = (b: unknown): b is Readable =>
  typeof (b as Readable).on === 'function' && typeof (b as Readable).pause === 'function';

/** What the reader holds, lets go on and releases: a Readable, or an undici call (src/infra/upstream/upstream-answer.ts). */
export type SseSource = { pause(): void; resume(): void; destroy(): void };

/**
 * SSE events pushed in by whoever reads the body (`data`, then `end` or `fail`), taken by an
 * async iterator or `nextReady`; past MAX_READY events not yet taken, the source is paused.
 */
export class PushedSse implements SseEvents {
  /**
   * Decoded events not yet taken: `[#head, #tail)`. Slots are reused from read to read (no array
   * per read) and cleared when taken, so no event outlives its turn here.
   */
  #ready: (StreamEvent | undefined)[] = [];
  #head = 0;
  #tail = 0;
  #over = false;
  #failure: { error: unknown } | undefined;
  #paused = false;
  /** `onReady`'s consumer, and whether its call is queued. */
  #wake: (() => void) | undefined;
  #woken = false;
  /** The pending `next()`'s promise, settled by `#notify`: one promise per wait, no closure. */
  #resolve: ((r: IteratorResult<StreamEvent>) => void) | undefined;
  #reject: ((e: unknown) => void) | undefined;
  readonly #source: SseSource;
  readonly #sse: SseFeed;
  readonly #onError: ((e: unknown) => StreamEvent) | undefined;

  /** `bound`: one event past `upstream.max_answer_bytes` fails the stream as a cut one fails, and destroys the source. */
  constructor(
    source: SseSource,
    decoder: UpstreamStreamDecoder,
    onError: ((e: unknown) => StreamEvent) | undefined,
    bound?: EventBound,
  ) {
    this.#source = source;
    this.#onError = onError;
    this.#sse = sseFeed(
      decoder,
      (ev) => {
        this.#ready[this.#tail++] = ev;
      },
      bound,
    );
  }

  /** The read failed (or a decoder threw): the failure is the last event, or what the iterator rejects with. */
  fail(e: unknown): void {
    if (this.#over) return;
    this.#over = true;
    if (this.#onError) this.#ready[this.#tail++] = this.#onError(e);
    else this.#failure = { error: e };
    this.#notify();
  }

  data(chunk: Uint8Array | string): void {
    if (this.#over) return;
    try {
      this.#sse.feed(chunk);
    } catch (e) {
      this.fail(e);
      this.#source.destroy();
      return;
    }
    if (this.#tail - this.#head >= MAX_READY && !this.#paused) {
      this.#paused = true;
      this.#source.pause();
    }
    this.#notify();
  }

  end(): void {
    if (this.#over) return;
    try {
      this.#sse.end();
    } catch (e) {
      return this.fail(e);
    }
    this.#over = true;
    this.#notify();
  }

  #notify(): void {
    if (this.#wake !== undefined) {
      if (!this.#woken && (this.#head !== this.#tail || this.#over)) {
        this.#woken = true;
        queueMicrotask(this.#runWake);
      }
      return;
    }
    const resolve = this.#resolve;
    if (resolve === undefined || (this.#head === this.#tail && !this.#over)) return;
    const reject = this.#reject!;
    this.#resolve = undefined;
    this.#reject = undefined;
    try {
      resolve(this.#shift() ?? { done: true, value: undefined });
    } catch (e) {
      reject(e);
    }
  }

  /** One closure per stream, queued as is: no closure or promise per wake. */
  readonly #runWake = (): void => {
    this.#woken = false;
    this.#wake?.();
  };

  onReady(wake: () => void): void {
    this.#wake = wake;
    this.#notify();
  }

  finished(): boolean {
    if (this.#head !== this.#tail || !this.#over) return false;
    if (this.#failure) {
      const { error } = this.#failure;
      this.#failure = undefined;
      throw error;
    }
    return true;
  }

  nextReady(): StreamEvent | undefined {
    if (this.#head === this.#tail) return undefined;
    const value = this.#ready[this.#head];
    this.#ready[this.#head++] = undefined;
    if (this.#head === this.#tail) {
      this.#head = 0;
      this.#tail = 0;
      if (this.#paused) {
        this.#paused = false;
        this.#source.resume();
      }
    }
    return value;
  }

  #shift(): IteratorResult<StreamEvent> | undefined {
    const value = this.nextReady();
    if (value !== undefined) return { done: false, value };
    return this.finished() ? { done: true, value: undefined } : undefined;
  }

  /**
   * Not `async`: one promise and one turn of the microtask queue per upstream read that finds
   * nothing decoded, where an async method with an awaited wake costs three promises and three.
   */
  next(): Promise<IteratorResult<StreamEvent>> {
    try {
      const now = this.#shift();
      if (now) return Promise.resolve(now);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The consumer stops early (the client left): the upstream body is released. */
  async return(): Promise<IteratorResult<StreamEvent>> {
    if (!this.#over) {
      this.#over = true;
      this.#source.destroy();
    }
    this.#ready = [];
    this.#head = 0;
    this.#tail = 0;
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
