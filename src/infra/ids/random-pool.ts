// Random bytes for the ids polygate mints (request ids, Responses `resp_…` ids), drawn from the
// system's CSPRNG 4 KiB at a time, as Node's own `crypto.randomUUID()` caches its entropy: one
// fill for hundreds of ids instead of a call (and its buffer) per id.
import { randomFillSync } from 'node:crypto';

/** The pool: read `bytes` at the offset `draw` returns, before the next draw. */
export const randomPool = Buffer.allocUnsafeSlow(4096);
let used = randomPool.length;

/** The offset of `bytes` fresh random bytes in `randomPool` (at most its length). */
export function draw(bytes: number): number {
  if (used + bytes > randomPool.length) {
    randomFillSync(randomPool);
    used = 0;
  }
  const at = used;
  used += bytes;
  return at;
}

/**
 * `bytes` random bytes as lowercase hex, one string (a Responses id was `crypto.randomUUID()`
 * twice and a regex `replace`: ~1 KB of garbage an id).
 */
export function randomHex(bytes: number): string {
  const at = draw(bytes);
  return randomPool.toString('hex', at, at + bytes);
}
