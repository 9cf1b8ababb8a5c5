import type { ServerResponse } from 'node:http';
import type { ClientStreamEncoder } from '../../../adapters/shared/chat-adapter.ts';
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
  writer.open(200, headers);
  let outcome: Omit<StreamOutcome, 'encodeMs'> = { outcome: 'ok' };
  let encodeMs = 0;
  const encode = (e: StreamEvent): ReturnType<ClientStreamEncoder['push']> => {
    const t0 = performance.now();
    const frames = encoder.push(e);
    encodeMs += performance.now() - t0;
    return frames;
  };
  const send = async (e: StreamEvent): Promise<void> => {
    observe(e);
    // An error after the client left is the abort it caused, not an upstream failure.
    if (e.type === 'error')
      outcome = writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error: e.error };
    if (e.type === 'finish' && beforeFinish !== undefined && !writer.closed) await beforeFinish();
    await writer.write(encode(e));
  };
  try {
    if (first) await send(first);
    while (!writer.closed) {
      const r = await rest.next();
      if (r.done) break;
      await send(r.value);
    }
    if (writer.closed && outcome.outcome === 'ok') {
      outcome = { outcome: 'client_closed' };
      await rest.return?.();
    }
  } catch (e) {
    const error = toGatewayError(e);
    if (!writer.closed) await writer.write(encode({ type: 'error', error }));
    // HTTP providers turn every upstream failure into an error event (src/services/providers/http-chat-provider.ts),
    // so what is thrown here comes from polygate itself.
    outcome = writer.closed ? { outcome: 'client_closed' } : { outcome: 'error', error, local: true };
  }
  writer.end();
  return { ...outcome, encodeMs };
}
