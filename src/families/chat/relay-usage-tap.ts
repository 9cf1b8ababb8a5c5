// What a relay learns from the bytes it passes on: the upstream's usage and what it streamed
// (src/services/usage/usage-meter.ts), read with the format's own decoder without changing a byte.
import type { ChatUpstreamCodec, SseFrame } from '../../../adapters/shared/chat-adapter.ts';
import { sseFeed, type EventBound } from '../../infra/upstream/read-sse.ts';
import { StreamMeter } from '../../services/usage/usage-meter.ts';

/**
 * Decodes the relayed bytes with the format's own decoder, to learn what the upstream reported
 * and streamed (src/services/usage/usage-meter.ts); a stream's frames go to `observe` too.
 * `bound` (`upstream.max_answer_bytes`) bounds the tap's memory, never the relay: a JSON answer
 * past it is not copied (the meter estimates, as for a body that is not JSON), and a stream's
 * event past it stops the tap's parsing (the meter bills what it saw, as for a cut stream).
 */
export function usageTap(
  codec: ChatUpstreamCodec,
  contentType: string,
  status: number,
  observe?: (frames: SseFrame[]) => void,
  observeJson?: (body: unknown) => void,
  bound?: EventBound,
): { feed: (b: Buffer) => void; end: () => void; meter: () => StreamMeter | undefined; finished: () => boolean } {
  if (status >= 400) return { feed: () => {}, end: () => {}, meter: () => undefined, finished: () => false };
  const meter = new StreamMeter();
  if (contentType.includes('text/event-stream')) {
    let finished = false;
    const decoder = codec.createStreamDecoder();
    const watched = observe
      ? {
          push: (frame: SseFrame) => {
            observe([frame]);
            return decoder.push(frame);
          },
          end: () => decoder.end(),
        }
      : decoder;
    const sse = sseFeed(
      watched,
      (ev) => {
        meter.observe(ev);
        if (ev.type === 'finish') finished = true;
      },
      bound,
    );
    /** The tap stopped (an event past the bound): the relay goes on, unread. */
    let stopped = false;
    const feed = (b: Buffer): void => {
      if (stopped) return;
      try {
        sse.feed(b);
      } catch {
        // In the upstream's 'data' handler a throw would stop the process; the bound is the tap's, not the relay's.
        stopped = true;
      }
    };
    const end = (): void => {
      if (stopped) return;
      try {
        sse.end();
      } catch {
        // In the upstream's 'end' handler a throw would stop the process: the meter bills what it saw.
      }
    };
    return { feed, end, meter: () => meter, finished: () => finished };
  }
  return jsonTap(codec, meter, observeJson, bound?.max ?? Infinity);
}

type Tap = ReturnType<typeof usageTap>;

/** A JSON answer's tap: a copy of its bytes (up to `max`), read once for the usage it reports. */
function jsonTap(
  codec: ChatUpstreamCodec,
  meter: StreamMeter,
  observeJson: ((body: unknown) => void) | undefined,
  max: number,
): Tap {
  let chunks: Buffer[] = [];
  let size = 0;
  /** The first bytes of an answer past the bound: the sample its output is estimated from. */
  let firstBytes = '';
  // Read once: the record (before the body goes out) and the relay's result both ask for it.
  let read = false;
  return {
    finished: () => false,
    feed: (b) => {
      // Past the bound the copy is dropped: the meter estimates, as for a body that is not JSON.
      if ((size += b.length) <= max) chunks.push(b);
      else if (firstBytes === '') {
        chunks.push(b);
        firstBytes = Buffer.concat(chunks, Math.min(size, 4096)).toString('utf8');
        chunks = [];
      }
    },
    end: () => {},
    meter: () => {
      if (read) return meter;
      read = true;
      if (size > max) {
        meter.unread(firstBytes, size);
        return meter;
      }
      try {
        // A small body arrives in one chunk: no copy of it.
        const body: unknown = JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8'));
        observeJson?.(body);
        meter.answered(codec.decodeResult(body));
      } catch {
        // cut short or not JSON: nothing reported, the meter estimates
      }
      return meter;
    },
  };
}
