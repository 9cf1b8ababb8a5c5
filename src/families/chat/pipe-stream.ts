import type { ServerResponse } from 'node:http';
import type { ClientStreamEncoder, SseFrame } from '../../../adapters/shared/chat-adapter.ts';
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

/** Nothing decoded ahead: what a plain iterator (no `takeReady`) always has. */
const noneReady: readonly StreamEvent[] = [];

export async function pipeStream(
  res: ServerResponse,
  headers: Record<string, string>,
  encoder: ClientStreamEncoder,
  first: StreamEvent | undefined,
  rest: AsyncIterator<StreamEvent>,
  observe: (e: StreamEvent) => void,
  /** Awaited before the finish event's frames are written (the usage record is stored first). */
  beforeFinish?: () => Promise<void>,
): Promise<StreamOutcome> {
  const writer = new SseWriter(res);
  writer.open(200, headers);
  const pipe = new Pipe(writer, encoder, observe, beforeFinish);
  try {
    const pushed = rest as Partial<SseEvents>;
    if (pushed.listen !== undefined && pushed.over !== undefined) await pushedLoop(pipe, first, pushed as SseEvents);
    else await pulledLoop(pipe, first, rest);
    if (writer.closed && pipe.outcome.outcome === 'ok') {
      pipe.outcome = { outcome: 'client_closed' };
      await rest.return?.();
    }
  } catch (e) {
    const error = toGatewayError(e);
    if (!writer.closed) {
      pipe.encode({ type: 'error', error });
      await pipe.flush();
    }
    // HTTP providers turn every upstream failure into an error event (src/services/providers/http-chat-provider.ts),
    // so what is thrown here comes from polygate itself.
    pipe.outcome = writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error, local: true };
  }
  writer.end();
  return { ...pipe.outcome, encodeMs: pipe.encodeMs };
}

/** One stream's state between its events and the client's socket. */
class Pipe {
  outcome: Omit<StreamOutcome, 'encodeMs'> = { outcome: 'ok' };
  encodeMs = 0;
  // The frames of the events at hand: every event decoded from one upstream read is encoded,
  // then written in one chunk (one write, no promise per event; issue #28).
  readonly #pending: SseFrame[] = [];
  readonly writer: SseWriter;
  readonly #encoder: ClientStreamEncoder;
  readonly #observe: (e: StreamEvent) => void;
  readonly #beforeFinish: (() => Promise<void>) | undefined;

  constructor(
    writer: SseWriter,
    encoder: ClientStreamEncoder,
    observe: (e: StreamEvent) => void,
    beforeFinish: (() => Promise<void>) | undefined,
  ) {
    this.writer = writer;
    this.#encoder = encoder;
    this.#observe = observe;
    this.#beforeFinish = beforeFinish;
  }

  /**
   * Observes an event and encodes it into the pending frames; a promise only for a finish event
   * whose record must be stored first (the frames before it are written, then it waits).
   */
  take(e: StreamEvent): Promise<void> | undefined {
    this.#observe(e);
    // An error after the client left is the abort it caused, not an upstream failure.
    if (e.type === 'error')
      this.outcome = this.writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error: e.error };
    if (e.type === 'finish' && this.#beforeFinish !== undefined && !this.writer.closed) return this.#finish(e);
    this.encode(e);
    return undefined;
  }

  async #finish(e: StreamEvent): Promise<void> {
    await this.flush();
    await this.#beforeFinish?.();
    this.encode(e);
  }

  encode(e: StreamEvent): void {
    const t0 = performance.now();
    const frames = this.#encoder.push(e);
    this.encodeMs += performance.now() - t0;
    for (let i = 0; i < frames.length; i++) this.#pending.push(frames[i]);
  }

  /** Writes the pending frames; a promise only when the client's socket is full (backpressure). */
  flush(): Promise<void> | undefined {
    if (this.#pending.length === 0) return undefined;
    const more = this.writer.writeNow(this.#pending);
    this.#pending.length = 0;
    return more ? undefined : this.writer.drained();
  }
}

/** Any event iterator: one `next()` per batch of events (the events at hand taken at once when it can). */
async function pulledLoop(pipe: Pipe, first: StreamEvent | undefined, rest: AsyncIterator<StreamEvent>): Promise<void> {
  const takeReady = (rest as Partial<SseEvents>).takeReady;
  let next = first;
  for (;;) {
    const ready = takeReady ? takeReady.call(rest) : noneReady;
    let i = 0;
    while (next !== undefined) {
      const wait = pipe.take(next);
      if (wait) await wait;
      next = i < ready.length ? ready[i++] : undefined;
    }
    const full = pipe.flush();
    if (full) await full;
    if (pipe.writer.closed) return;
    const r = await rest.next();
    if (r.done) return;
    next = r.value;
  }
}

/**
 * The push reader (src/infra/upstream/read-sse.ts): the events of an upstream read are observed,
 * encoded and written from that read's own callback, with no promise or turn of the microtask
 * queue per read (issue #28); it waits only for a full socket or the record before the finish.
 * Events that come while it waits are taken when it is done waiting.
 */
function pushedLoop(pipe: Pipe, first: StreamEvent | undefined, events: SseEvents): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let running = false;
    let again = false;
    let done = false;
    const finish = (error?: unknown): void => {
      done = true;
      if (error === undefined) resolve();
      else reject(error);
    };
    const run = async (firstBatch: readonly StreamEvent[]): Promise<void> => {
      running = true;
      try {
        let batch = firstBatch;
        do {
          again = false;
          for (let i = 0; i < batch.length; i++) {
            const wait = pipe.take(batch[i]);
            if (wait) await wait;
          }
          const full = pipe.flush();
          if (full) await full;
          if (pipe.writer.closed) return finish();
          batch = events.takeReady();
          if (batch.length === 0 && events.over()) return finish();
        } while (batch.length > 0 || again);
      } catch (e) {
        finish(e);
      } finally {
        running = false;
      }
    };
    events.listen(() => {
      if (done) return;
      if (running) again = true;
      else void run(events.takeReady());
    });
    const ready = events.takeReady();
    void run(first === undefined ? ready : [first, ...ready]);
  });
}
