import { isUtf8 } from 'node:buffer';

/** TextDecoder's options for every read: one object, not one per read (issue #28). */
const streaming: TextDecodeOptions = { stream: true };

/**
 * A byte stream's reads as text, exactly as one streaming TextDecoder reads them (UTF-8, a leading
 * BOM dropped, invalid bytes as U+FFFD, a character split between reads joined), with less made
 * per read (issue #28: a streaming `decode` allocates ~160 bytes a call beside its string). A read
 * that is whole, valid UTF-8 (`isUtf8`: no invalid byte, no character cut at its end), coming
 * when the decoder holds nothing, decodes to the same text on its own: it is read with
 * `Buffer#toString`. The decoder holds nothing after such a read, nor after any read that ends in
 * an ASCII byte (a byte below 0x80 ends whatever sequence was open); the first reads, until one
 * has given text, go to the decoder, which drops the stream's BOM.
 */
export class Utf8Reads {
  readonly #decoder = new TextDecoder();
  /** The decoder holds no bytes of a character begun in an earlier read. */
  #clean = true;
  /** The decoder has given text: the BOM, if there was one, is behind. */
  #started = false;

  decode(chunk: Uint8Array): string {
    if (this.#started && this.#clean && Buffer.isBuffer(chunk) && isUtf8(chunk)) return chunk.toString();
    const s = this.#decoder.decode(chunk, streaming);
    if (s.length > 0) this.#started = true;
    if (chunk.length > 0) this.#clean = chunk[chunk.length - 1] < 0x80;
    return s;
  }
}
