// What a relay learns from the bytes it passes on: the upstream's usage and what it streamed
// (src/services/usage/usage-meter.ts), read with the format's own decoder without changing a byte.
import type { ChatUpstreamCodec, SseFrame } from '../../../adapters/shared/chat-adapter.ts';
import { sseFeed } from '../../infra/upstream/read-sse.ts';
import { StreamMeter } from '../../services/usage/usage-meter.ts';

/**
 * Decodes the relayed bytes with the format's own decoder, to learn what the upstream reported
 * and streamed (src/services/usage/usage-meter.ts); a stream's frames go to `observe` too.
 */
export function usageTap(
  codec: ChatUpstreamCodec,
  contentType: string,
  status: number,
  observe?: (frames: SseFrame[]) => void,
  observeJson?: (body: unknown) => void,
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
    const sse = sseFeed(watched, (ev) => {
      meter.observe(ev);
      if (ev.type === 'finish') finished = true;
    });
    const end = (): void => {
      try {
        sse.end();
      } catch {
        // In the upstream's 'end' handler a throw would stop the process: the meter bills what it saw.
      }
    };
    return { feed: sse.feed, end, meter: () => meter, finished: () => finished };
  }
  const chunks: Buffer[] = [];
  // Read once: the record (before the body goes out) and the relay's result both ask for it.
  let read = false;
  return {
    finished: () => false,
    feed: (b) => chunks.push(b),
    end: () => {},
    meter: () => {
      if (read) return meter;
      read = true;
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
