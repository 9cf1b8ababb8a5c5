// AWS's binary event-stream framing (application/vnd.amazon.eventstream), as Bedrock streams
// answers: each message is a length-prefixed frame with CRCs, typed headers and a payload. The
// frames are cut from the byte stream by their length prelude and decoded (CRCs checked, headers
// read) by @smithy/eventstream-codec, the codec the AWS SDK itself uses, imported at the first
// stream read so gateways without Bedrock never load it.
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import { GatewayError } from '../../ir/gateway-error.ts';

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

/** The prelude's first field: the whole message's length, big-endian. */
const totalLength = (b: Uint8Array): number => new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
/** A message is at least its 12-byte prelude and 4-byte CRC; one claiming more than 16 MiB is not AWS's. */
const minLength = 16;
const maxLength = 16 * 1024 * 1024;

export async function* readEventStream(body: AsyncIterable<Uint8Array>): AsyncIterable<EventStreamMessage> {
  const frames = await codecOf();
  let buffered: Uint8Array = new Uint8Array(0);
  for await (const chunk of body) {
    buffered = concat(buffered, chunk);
    while (buffered.length >= 4) {
      const length = totalLength(buffered);
      if (length < minLength || length > maxLength)
        throw new GatewayError('upstream', `the upstream's event stream has a frame of ${length} bytes`);
      if (buffered.length < length) break;
      yield decode(frames, buffered.subarray(0, length));
      buffered = buffered.subarray(length);
    }
  }
  if (buffered.length > 0) throw new GatewayError('upstream', "the upstream's event stream ended inside a frame");
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

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
