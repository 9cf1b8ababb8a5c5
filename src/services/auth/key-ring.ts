import { hash, timingSafeEqual } from 'node:crypto';
import type { KeyConfig } from '../../infra/config/gateway-config.ts';
import { matchGlob } from '../routing/match-glob.ts';
import type { BudgetSpec } from '../../infra/config/budget-spec.ts';

/** What an authenticated request carries: never the secret, only who and what it may do. */
export type ApiKey = {
  id: string;
  workspace: string;
  /** Client-facing model names this key may use, compiled once from the config's globs. */
  allows(model: string): boolean;
  limits: { rpm: number; tpm: number; concurrency: number };
  /** A key created at runtime carries its own budget (issue #25); a YAML key's is in usage.budgets. */
  budget?: BudgetSpec;
};

type Entry = { hash: Buffer; key: ApiKey };

/**
 * The digest a secret is kept and looked up by (the YAML's keys here, runtime keys in
 * runtime-keys.ts), as a latin1 ('binary') string of its 32 bytes: a request's credential is hashed once for
 * both. The one-shot `crypto.hash` skips the Hash object a createHash chain allocates, and asking it
 * for a string rather than a Buffer skips the Buffer (an ArrayBuffer outside the heap, which the GC
 * tracks apart): 0.25 µs instead of 0.8 per request (bench/RESULTS.md, "Session 10").
 */
export const secretDigest = (s: string): string => hash('sha256', s, 'binary');

/**
 * A stored digest against a presented one, in constant time. Called only once the map lookup has
 * found the presented digest, so it always holds; kept so that no match is ever decided by a
 * comparison whose time depends on where two digests differ.
 */
export const sameDigest = (presented: string, stored: Buffer): boolean =>
  timingSafeEqual(Buffer.from(presented, 'latin1'), stored);

/**
 * Secrets are kept only as SHA-256 digests. A presented credential is hashed, its key found by
 * that digest in a map, and the match confirmed with timingSafeEqual. The lookup's timing depends
 * only on the digest of what the client sent, which no client can steer toward a stored digest
 * (SHA-256 is preimage-resistant), so it says nothing about a stored secret; and the work per
 * request stays the same with 5 keys or 5,000 (comparing against every entry took ~0.1 µs per
 * key per request: bench/RESULTS.md, "Speed, round two").
 */
export class KeyRing {
  /** By digest (as a latin1 ('binary') string of its 32 bytes); the first key of a secret configured twice wins. */
  readonly #byDigest = new Map<string, Entry>();
  readonly #ids = new Set<string>();
  constructor(keys: KeyConfig[]) {
    for (const k of keys) {
      this.#ids.add(k.id);
      const digest = k.secret_sha256
        ? Buffer.from(k.secret_sha256, 'hex')
        : Buffer.from(secretDigest(k.secret ?? ''), 'latin1');
      const id = digest.toString('latin1');
      if (this.#byDigest.has(id)) continue;
      this.#byDigest.set(id, {
        hash: digest,
        key: {
          id: k.id,
          workspace: k.workspace,
          allows: globMatcher(k.models ?? ['*']),
          limits: { rpm: k.limits?.rpm ?? 0, tpm: k.limits?.tpm ?? 0, concurrency: k.limits?.concurrency ?? 0 },
        },
      });
    }
  }

  /** Whether the config file has a key of this id (a runtime key of the same id is then not used). */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  authenticate(credential: string | undefined): ApiKey | undefined {
    return credential ? this.byDigest(secretDigest(credential)) : undefined;
  }

  /** The key of a presented credential's digest (secretDigest). */
  byDigest(presented: string): ApiKey | undefined {
    const e = this.#byDigest.get(presented);
    return e && sameDigest(presented, e.hash) ? e.key : undefined;
  }
}

/** `*` matches any run of characters, `?` one; everything else literally (src/services/routing/match-glob.ts). */
export function globMatcher(globs: string[]): (name: string) => boolean {
  if (globs.includes('*')) return () => true;
  return (name) => globs.some((g) => matchGlob(g, name) !== undefined);
}
