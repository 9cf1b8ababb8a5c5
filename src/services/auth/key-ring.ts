import { hash, timingSafeEqual } from 'node:crypto';
import type { KeyConfig } from '../../infra/config/gateway-config.ts';
import { matchGlob } from '../routing/match-glob.ts';

/** What an authenticated request carries: never the secret, only who and what it may do. */
export type ApiKey = {
  id: string;
  workspace: string;
  /** Client-facing model names this key may use, compiled once from the config's globs. */
  allows(model: string): boolean;
  limits: { rpm: number; tpm: number; concurrency: number };
};

type Entry = { hash: Buffer; key: ApiKey };

// The one-shot `crypto.hash` skips the Hash object a createHash chain allocates per request.
const sha256 = (s: string): Buffer => hash('sha256', s, 'buffer');

/**
 * Secrets are kept only as SHA-256 digests. A presented credential is hashed and compared against
 * every entry with timingSafeEqual, without stopping at a match, so timing says nothing about
 * which key (or how much of one) matched.
 */
export class KeyRing {
  readonly #entries: Entry[];
  constructor(keys: KeyConfig[]) {
    this.#entries = keys.map((k) => ({
      hash: k.secret_sha256 ? Buffer.from(k.secret_sha256, 'hex') : sha256(k.secret ?? ''),
      key: {
        id: k.id,
        workspace: k.workspace,
        allows: globMatcher(k.models ?? ['*']),
        limits: { rpm: k.limits?.rpm ?? 0, tpm: k.limits?.tpm ?? 0, concurrency: k.limits?.concurrency ?? 0 },
      },
    }));
  }

  authenticate(credential: string | undefined): ApiKey | undefined {
    if (!credential) return undefined;
    const presented = sha256(credential);
    let found: ApiKey | undefined;
    for (const e of this.#entries) {
      if (timingSafeEqual(presented, e.hash) && !found) found = e.key;
    }
    return found;
  }
}

/** `*` matches any run of characters, `?` one; everything else literally (src/services/routing/match-glob.ts). */
export function globMatcher(globs: string[]): (name: string) => boolean {
  if (globs.includes('*')) return () => true;
  return (name) => globs.some((g) => matchGlob(g, name) !== undefined);
}
