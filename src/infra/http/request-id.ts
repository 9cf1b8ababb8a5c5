import { draw, randomPool as pool } from '../ids/random-pool.ts';

// A request's id (x-request-id) when the client sent none: a random (version 4) UUID, as
// `crypto.randomUUID()` makes, from the same kind of entropy cache (src/infra/ids/random-pool.ts). Node builds its UUID by concatenating 20 short strings (~0.55 KB of garbage a
// request); this writes the 36 characters into one buffer and decodes it once (one string).

const text = Buffer.allocUnsafeSlow(36);
const hex = Buffer.from('0123456789abcdef', 'latin1');

/** A new random UUID (RFC 9562 version 4, lowercase), e.g. `0b9c7a52-7c1e-4d2a-9f3e-5a1b2c3d4e5f`. */
export function newRequestId(): string {
  const at = draw(16);
  let w = 0;
  for (let i = 0; i < 16; i++) {
    let b = pool[at + i];
    // The version (4) in byte 6's high nibble, the variant (binary 10) in byte 8's two high bits.
    if (i === 6) b = (b & 0x0f) | 0x40;
    else if (i === 8) b = (b & 0x3f) | 0x80;
    if (i === 4 || i === 6 || i === 8 || i === 10) text[w++] = 0x2d;
    text[w++] = hex[b >> 4];
    text[w++] = hex[b & 15];
  }
  return text.toString('latin1', 0, 36);
}
