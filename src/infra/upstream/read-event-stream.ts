// AWS's binary event-stream framing (application/vnd.amazon.eventstream), as Bedrock streams
// answers: each message is a length-prefixed frame with CRCs, typed headers and a payload. The
// frames are cut from the byte stream by their length prelude and decoded (CRCs checked, headers
// read) by @smithy/eventstream-codec, the codec the AWS SDK itself uses, imported at the first
// stream read so gateways without Bedrock never load it.
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import { crc32 } from 'node:zlib';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { EventBound } from './read-sse.ts';
import { answerTooLarge, defaultMaxAnswerBytes } from './upstream-request.ts';

/** One decoded message: string-valued headers (`:event-type`, `:message-type`, …) and the payload. */
export type EventStreamMessage = { headers: Record<string, string>; body: Uint8Array };

const utf8 = new TextDecoder();
const encoder = new TextEncoder();
let codec: Promise<EventStreamCodec> | undefined;
const codecOf = (): Promise<EventStreamCodec> =>
  (codec ??= import('@smithy/eventstream-codec').then(
    (m) =>
      new m.EventStreamCodec(
        (b) => utf8.decode(b),
        (s) => encoder.encode(s),
      ),
  ));

/** A message is at least its 12-byte prelude and 4-byte CRC; one claiming more than 16 MiB is not AWS's. */
const preludeLength = 12;
const minLength = 16;
const maxLength = 16 * 1024 * 1024;

/** A big-endian 32-bit field of a prelude. */
const u32 = (b: Uint8Array, at: number): number =>
  ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

/**
 * The next frame's length, from its prelude (total length, headers length, CRC of both), checked
 * before any more of the frame is buffered: a length the format does not allow or one past
 * `upstream.max_answer_bytes` fails the stream as a cut one (the caller's error event), and so does
 * a damaged prelude when the frame is not all here yet (a whole frame's prelude CRC is checked by
 * the codec, so it is not computed twice).
 */
function frameLength(b: Uint8Array, size: number, bound: EventBound | undefined): number {
  const length = u32(b, 0);
  if (size < length && crc32(b.subarray(0, 8)) !== u32(b, 8))
    throw new GatewayError(
      'upstream',
      "the upstream's event stream has a damaged frame prelude (its CRC does not match)",
    );
  if (length < minLength || length > maxLength || u32(b, 4) > length - minLength)
    throw new GatewayError('upstream', `the upstream's event stream has a frame of ${length} bytes`);
  const max = bound?.max ?? defaultMaxAnswerBytes;
  if (length > max) throw answerTooLarge(bound?.provider ?? 'upstream', max, 'an event-stream frame');
  return length;
}

/**
 * The frames of an event stream, each buffered once its prelude said how long it is (the bytes of
 * one frame are kept as they came and joined once, when it is whole). `bound`: the provider's
 * `upstream.max_answer_bytes`, the most one frame may claim.
 */
export async function* readEventStream(
  body: AsyncIterable<Uint8Array>,
  bound?: EventBound,
): AsyncIterable<EventStreamMessage> {
  const frames = await codecOf();
  let parts: Uint8Array[] = [];
  let size = 0;
  /** The length of the frame being read, once its prelude is in (0 before). */
  let length = 0;
  for await (const chunk of body) {
    parts.push(chunk);
    size += chunk.length;
    for (;;) {
      if (length === 0) {
        if (size < preludeLength) break;
        if (parts.length > 1) parts = [concat(parts, size)];
        length = frameLength(parts[0], size, bound);
      }
      if (size < length) break;
      const all = parts.length === 1 ? parts[0] : concat(parts, size);
      yield decode(frames, all.subarray(0, length));
      parts = size > length ? [all.subarray(length)] : [];
      size -= length;
      length = 0;
    }
  }
  if (size > 0) throw new GatewayError('upstream', "the upstream's event stream ended inside a frame");
}

function decode(codec: EventStreamCodec, frame: Uint8Array): EventStreamMessage {
  let message;
  try {
    message = codec.decode(frame);
  } catch (e) {
    throw new GatewayError(
      'upstream',
      `the upstream sent an event-stream frame that does not decode (${(e as Error).message})`,
    );
  }
  const headers: Record<string, string> = {};
  for (const [name, h] of Object.entries(message.headers)) if (h.type === 'string') headers[name] = h.value;
  return { headers, body: message.body };
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
