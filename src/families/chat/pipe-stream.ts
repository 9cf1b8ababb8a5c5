import type { ServerResponse } from 'node:http';
import type { ClientStreamEncoder } from '../../../adapters/shared/chat-adapter.ts';
import type { SseEvents } from '../../infra/upstream/read-sse.ts';
import type { GatewayError } from '../../ir/gateway-error.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import { SseWriter } from '../../infra/http/sse-writer.ts';
import { toGatewayError } from '../../infra/errors/to-gateway-error.ts';

/**
 * Reads the first event before answering, so an upstream that fails at once still gets a proper
 * HTTP error (and the next route); after that, errors travel inside the stream.
 */
export async function firstEvent(
  events: AsyncIterable<StreamEvent>,
): Promise<{ first: StreamEvent | undefined; rest: AsyncIterator<StreamEvent> }> {
  const it = events[Symbol.asyncIterator]();
  const r = await it.next();
  if (!r.done && r.value.type === 'error') {
    await it.return?.();
    throw r.value.error;
  }
  return { first: r.done ? undefined : r.value, rest: it };
}

/**
 * encodeMs: time spent in the client encoder over the whole stream (the translation cost).
 * `local`: the error was thrown inside polygate (the encoder, a built-in provider), not reported
 * by the upstream, so it says nothing about the upstream's health.
 */
export type StreamOutcome = {
  outcome: 'ok' | 'error' | 'client_closed';
  error?: GatewayError;
  local?: boolean;
  encodeMs: number;
};

/**
 * Encodes and writes the stream's events as they come. Events decoded from one upstream read are
 * encoded and written in one chunk (one write, no promise per event; issue #28). From the push
 * reader (`SseEvents`: src/infra/upstream/read-sse.ts) the events are taken as it calls back, with
 * no promise or await per upstream read; any other iterator is awaited read by read.
 */
export function pipeStream(
  res: ServerResponse,
  headers: Record<string, string>,
  encoder: ClientStreamEncoder,
  first: StreamEvent | undefined,
  rest: AsyncIterator<StreamEvent>,
  observe: (e: StreamEvent) => void,
  /** Awaited before the finish event's frames are written (the usage record is stored first). */
  beforeFinish?: () => Promise<void>,
): Promise<StreamOutcome> {
  return new Promise((resolve, reject) => {
    const pipe = new StreamPipe(res, headers, encoder, rest, observe, beforeFinish, resolve, reject);
    pipe.start(first);
  });
}

/** One stream's pipe: runs until it must wait (the upstream, the record, the client's socket), then is called back. */
class StreamPipe {
  readonly #writer: SseWriter;
  readonly #encoder: ClientStreamEncoder;
  readonly #rest: AsyncIterator<StreamEvent>;
  /** The push reader's calls, when `rest` is one. */
  readonly #push: Pick<SseEvents, 'nextReady' | 'finished' | 'onReady'> | undefined;
  readonly #observe: (e: StreamEvent) => void;
  readonly #beforeFinish: (() => Promise<void>) | undefined;
  readonly #resolve: (o: StreamOutcome) => void;
  readonly #reject: (e: unknown) => void;
  #outcome: Omit<StreamOutcome, 'encodeMs'> = { outcome: 'ok' };
  #encodeMs = 0;
  /** The event at hand, and whether it has been observed (a finish waits for the record between the two). */
  #next: StreamEvent | undefined;
  #observed = false;
  /** A step that is not the upstream's is under way (the record, a drain, a pulled read): a wake waits for it. */
  #busy = false;
  #done = false;
  /** Bound once: what the reader and the promises call back. */
  readonly #resume = (): void => {
    this.#busy = false;
    this.#run();
  };
  /** The reader's call: events are ready (taken at once unless a step is under way, which takes them when it ends). */
  readonly #wake = (): void => this.#run();
  readonly #failed = (e: unknown): void => {
    this.#busy = false;
    this.#fail(e);
  };
  readonly #pulled = (r: IteratorResult<StreamEvent>): void => {
    this.#busy = false;
    if (r.done) return void this.#end();
    this.#next = r.value;
    this.#run();
  };

  constructor(
    res: ServerResponse,
    headers: Record<string, string>,
    encoder: ClientStreamEncoder,
    rest: AsyncIterator<StreamEvent>,
    observe: (e: StreamEvent) => void,
    beforeFinish: (() => Promise<void>) | undefined,
    resolve: (o: StreamOutcome) => void,
    reject: (e: unknown) => void,
  ) {
    this.#writer = new SseWriter(res);
    this.#encoder = encoder;
    this.#rest = rest;
    const push = rest as Partial<SseEvents>;
    this.#push = push.onReady && push.nextReady && push.finished ? (push as SseEvents) : undefined;
    this.#observe = observe;
    this.#beforeFinish = beforeFinish;
    this.#resolve = resolve;
    this.#reject = reject;
    // The headers go with the first frames: one write for the first read's frames and the head, and
    // one in all for an answer that came in one read (its end waits for the record below).
    this.#writer.open(200, headers);
  }

  start(first: StreamEvent | undefined): void {
    this.#next = first;
    this.#run();
    if (this.#push && !this.#done) this.#push.onReady(this.#wake);
  }

  /** Encodes what is at hand, writes it, and waits for more: returns when it must wait or is over. */
  #run(): void {
    if (this.#busy || this.#done) return;
    try {
      for (;;) {
        if (!this.#encodeAtHand()) return;
        if (!this.#writer.flush()) {
          this.#busy = true;
          this.#writer.drained().then(this.#resume, this.#failed);
          return;
        }
        if (this.#writer.closed) return void this.#end();
        // Waiting for the upstream: a first read that encoded to nothing still shows the client its status.
        this.#writer.sendHeaders();
        const push = this.#push;
        if (push === undefined) {
          this.#busy = true;
          this.#rest.next().then(this.#pulled, this.#failed);
          return;
        }
        this.#next = push.nextReady();
        if (this.#next === undefined) {
          if (push.finished()) return void this.#end();
          return;
        }
      }
    } catch (e) {
      this.#fail(e);
    }
  }

  /**
   * The events at hand, one by one (no array per read), observed and encoded; false when the pipe
   * waits for the record before a finish.
   */
  #encodeAtHand(): boolean {
    let e = this.#next;
    while (e !== undefined) {
      if (!this.#observed) {
        this.#observed = true;
        this.#observe(e);
        // An error after the client left is the abort it caused, not an upstream failure.
        if (e.type === 'error')
          this.#outcome = this.#writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error: e.error };
        // The frames before the finish that came in the same upstream read wait for the record
        // with it, so an answer's end is one write, not two (issue #28; a read that ends an answer
        // nearly always carries its last text too).
        if (e.type === 'finish' && this.#beforeFinish !== undefined && !this.#writer.closed) {
          this.#busy = true;
          this.#beforeFinish().then(this.#resume, this.#failed);
          return false;
        }
      }
      this.#encode(e);
      this.#observed = false;
      // The events already decoded from the same read, one by one: no array per read.
      e = this.#next = this.#push?.nextReady();
    }
    return true;
  }

  #encode(e: StreamEvent): void {
    const t0 = performance.now();
    const frames = this.#encoder.push(e);
    this.#encodeMs += performance.now() - t0;
    if (frames.length > 0) this.#writer.add(frames);
  }

  /** Polygate itself failed (HTTP providers turn every upstream failure into an error event): told to the client if it is there. */
  #fail(e: unknown): void {
    if (this.#done) return;
    this.#busy = true;
    try {
      const error = toGatewayError(e);
      const writer = this.#writer;
      this.#outcome = writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error, local: true };
      if (!writer.closed) {
        this.#encode({ type: 'error', error });
        if (!writer.flush()) return void writer.drained().then(() => this.#finish(), this.#reject);
      }
      this.#finish();
    } catch (thrown) {
      this.#done = true;
      this.#reject(thrown);
    }
  }

  /** The upstream's stream is over, or the client left (its upstream is then released). */
  #end(): void {
    if (this.#done) return;
    if (this.#writer.closed && this.#outcome.outcome === 'ok') {
      this.#outcome = { outcome: 'client_closed' };
      this.#busy = true;
      try {
        const released = this.#rest.return?.();
        if (released) return void released.then(() => this.#finish(), this.#failed);
      } catch (e) {
        return this.#fail(e);
      }
    }
    this.#finish();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    try {
      this.#writer.end();
    } catch (e) {
      return this.#reject(e);
    }
    this.#resolve({ ...this.#outcome, encodeMs: this.#encodeMs });
  }
}
