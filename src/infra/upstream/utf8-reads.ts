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
 * an ASCII byte (a byte below 0x80 ends whatever sequence was open). The stream's first text
 * drops a BOM: a first read that begins with one goes to the decoder; any other whole one is read
 * on its own too. The decoder is made at the first read that needs it (most streams: none, ~0.3 KB
 * a stream with it and its first call), keeping a U+FEFF as text once the text has begun, as a
 * streaming decoder does past its start.
 */
export class Utf8Reads {
  #decoder: TextDecoder | undefined;
  /** The decoder holds no bytes of a character begun in an earlier read. */
  #clean = true;
  /** Text has been given: the BOM, if there was one, is behind. */
  #started = false;

  decode(chunk: Uint8Array): string {
    if (
      this.#clean &&
      Buffer.isBuffer(chunk) &&
      // Before the first text: only with no decoder yet (one made still has a BOM to drop) and none here.
      (this.#started || (this.#decoder === undefined && chunk.length > 0 && !startsWithBom(chunk))) &&
      isUtf8(chunk)
    ) {
      this.#started = true;
      return chunk.toString();
    }
    const s = (this.#decoder ??= new TextDecoder('utf-8', { ignoreBOM: this.#started })).decode(chunk, streaming);
    if (s.length > 0) this.#started = true;
    if (chunk.length > 0) this.#clean = chunk[chunk.length - 1] < 0x80;
    return s;
  }
}

/** UTF-8's BOM, EF BB BF, at a read's start. */
const startsWithBom = (b: Buffer): boolean => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
