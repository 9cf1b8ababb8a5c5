import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares digests, so neither the token's characters nor its length show in the timing. */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (v: string): Buffer => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
