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
      for (const ev of decoder.push({ event: e.event, data: e.data })) onEvent(ev);
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

/** Turns an upstream SSE byte stream into IR events through a format's stream decoder, chunk by chunk. */
export async function* readSse(
  body: AsyncIterable<Uint8Array | string>,
  decoder: UpstreamStreamDecoder,
): AsyncIterable<StreamEvent> {
  let pending: StreamEvent[] = [];
  const sse = sseFeed(decoder, (ev) => pending.push(ev));
  for await (const chunk of body) {
    sse.feed(chunk);
    if (pending.length > 0) {
      const out = pending;
      pending = [];
      yield* out;
    }
  }
  sse.end();
  yield* pending;
}
