import { createParser } from 'eventsource-parser';
import type { UpstreamStreamDecoder } from '../../adapters/shared/chat-adapter.ts';
import type { StreamEvent } from '../ir/stream-event.ts';

/**
 * Turns an upstream SSE byte stream into IR events through a format's stream decoder, chunk by
 * chunk: nothing is buffered beyond the event being parsed.
 */
export async function* readSse(body: AsyncIterable<Uint8Array | string>, decoder: UpstreamStreamDecoder): AsyncIterable<StreamEvent> {
  let pending: StreamEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      for (const ev of decoder.push({ event: e.event, data: e.data })) pending.push(ev);
    },
  });
  const text = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const out = pending;
      pending = [];
      yield* out;
    }
  }
  parser.reset({ consume: true });
  yield* pending;
  yield* decoder.end();
}
