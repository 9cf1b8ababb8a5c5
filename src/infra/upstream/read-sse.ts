import { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { UpstreamStreamDecoder } from '../../../adapters/shared/chat-adapter.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';

export type SseFeed = {
  /** Parses one chunk of the byte stream; events it completes go to `onEvent` at once. */
  feed(chunk: Uint8Array | string): void;
  /** The stream ended: a last event without its blank line is parsed, then the decoder's own end. */
  end(): void;
};

/**
 * The one SSE reader of upstream streams (eventsource-parser and the format's stream decoder),
 * for translated calls and, push by push, for the relay's usage tap (src/families/chat/pass-through.ts):
 * nothing is buffered beyond the event being parsed.
 */
export function sseFeed(decoder: UpstreamStreamDecoder, onEvent: (ev: StreamEvent) => void): SseFeed {
  const parser = createParser({
    onEvent: (e) => {
      const out = decoder.push({ event: e.event, data: e.data });
      for (let i = 0; i < out.length; i++) onEvent(out[i]);
    },
  });
  const text = new TextDecoder();
  return {
    feed: (chunk) => parser.feed(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true })),
    end: () => {
      parser.reset({ consume: true });
      for (const ev of decoder.end()) onEvent(ev);
    },
  };
}

/**
 * An event iterator that can also hand over, without waiting, every event already decoded: a
 * consumer that does (src/families/chat/pipe-stream.ts) encodes all the events of one upstream
 * read and writes them at once.
 */
export interface SseEvents extends AsyncIterableIterator<StreamEvent> {
  /** The events decoded and not yet taken, in order (none: an empty array). */
  takeReady(): StreamEvent[];
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
): SseEvents {
  const readable = isReadable(body) ? body : Readable.from(body, { objectMode: false });
  const events = new PushedSse(readable, decoder, onError);
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
 * async iterator or `takeReady`; past MAX_READY events not yet taken, the source is paused.
 */
export class PushedSse implements SseEvents {
  #ready: StreamEvent[] = [];
  #head = 0;
  #over = false;
  #failure: { error: unknown } | undefined;
  #paused = false;
  #wake: (() => void) | undefined;
  readonly #source: SseSource;
  readonly #sse: SseFeed;
  readonly #onError: ((e: unknown) => StreamEvent) | undefined;

  constructor(source: SseSource, decoder: UpstreamStreamDecoder, onError: ((e: unknown) => StreamEvent) | undefined) {
    this.#source = source;
    this.#onError = onError;
    this.#sse = sseFeed(decoder, (ev) => this.#ready.push(ev));
  }

  /** The read failed (or a decoder threw): the failure is the last event, or what the iterator rejects with. */
  fail(e: unknown): void {
    if (this.#over) return;
    this.#over = true;
    if (this.#onError) this.#ready.push(this.#onError(e));
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
    if (this.#ready.length - this.#head >= MAX_READY && !this.#paused) {
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
    const wake = this.#wake;
    if (wake && (this.#head < this.#ready.length || this.#over)) {
      this.#wake = undefined;
      wake();
    }
  }

  takeReady(): StreamEvent[] {
    if (this.#head >= this.#ready.length) return [];
    const out = this.#head === 0 ? this.#ready : this.#ready.slice(this.#head);
    this.#ready = [];
    this.#head = 0;
    this.#resumeIfDrained();
    return out;
  }

  #resumeIfDrained(): void {
    if (this.#paused && this.#head >= this.#ready.length) {
      this.#paused = false;
      this.#source.resume();
    }
  }

  #shift(): IteratorResult<StreamEvent> | undefined {
    if (this.#head < this.#ready.length) {
      const value = this.#ready[this.#head++];
      if (this.#head === this.#ready.length) {
        this.#ready = [];
        this.#head = 0;
        this.#resumeIfDrained();
      }
      return { done: false, value };
    }
    if (!this.#over) return undefined;
    if (this.#failure) {
      const { error } = this.#failure;
      this.#failure = undefined;
      throw error;
    }
    return { done: true, value: undefined };
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
      this.#wake = () => {
        try {
          resolve(this.#shift() ?? { done: true, value: undefined });
        } catch (e) {
          reject(e);
        }
      };
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
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
