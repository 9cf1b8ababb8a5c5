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
  // The headers go with the first frames: one write for the first read's frames and the head, and
  // one in all for an answer that came in one read (its end waits for the record below).
  writer.open(200, headers);
  let outcome: Omit<StreamOutcome, 'encodeMs'> = { outcome: 'ok' };
  let encodeMs = 0;
  // The frames of the events at hand: every event decoded from one upstream read is encoded,
  // then written in one chunk (one write, no promise per event; issue #28).
  const encode = (e: StreamEvent): void => {
    const t0 = performance.now();
    const frames = encoder.push(e);
    encodeMs += performance.now() - t0;
    if (frames.length > 0) writer.add(frames);
  };
  /** Writes the pending frames; a promise only when the client's socket is full (backpressure). */
  const flush = (): Promise<void> | undefined => (writer.flush() ? undefined : writer.drained());
  const nextReady = (rest as Partial<SseEvents>).nextReady;
  try {
    let next = first;
    for (;;) {
      while (next !== undefined) {
        observe(next);
        // An error after the client left is the abort it caused, not an upstream failure.
        if (next.type === 'error')
          outcome = writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error: next.error };
        // The frames before the finish that came in the same upstream read wait for the record
        // with it, so an answer's end is one write, not two (issue #28; a read that ends an answer
        // nearly always carries its last text too).
        if (next.type === 'finish' && beforeFinish !== undefined && !writer.closed) await beforeFinish();
        encode(next);
        // The events already decoded from the same read, one by one: no array per read.
        next = nextReady === undefined ? undefined : nextReady.call(rest);
      }
      const full = flush();
      if (full) await full;
      if (writer.closed) break;
      // Waiting for the upstream: a first read that encoded to nothing still shows the client its status.
      writer.sendHeaders();
      const r = await rest.next();
      if (r.done) break;
      next = r.value;
    }
    if (writer.closed && outcome.outcome === 'ok') {
      outcome = { outcome: 'client_closed' };
      await rest.return?.();
    }
  } catch (e) {
    const error = toGatewayError(e);
    if (!writer.closed) {
      encode({ type: 'error', error });
      await flush();
    }
    // HTTP providers turn every upstream failure into an error event (src/services/providers/http-chat-provider.ts),
    // so what is thrown here comes from polygate itself.
    outcome = writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error, local: true };
  }
  writer.end();
  return { ...outcome, encodeMs };
}
