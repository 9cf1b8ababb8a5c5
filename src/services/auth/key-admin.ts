// The write side of runtime keys (issue #25, docs/admin-api.md "Keys"): create, change, rotate,
// delete. Input arrives validated (src/app/key-input.ts); here are the store steps, each applied to
// this instance's copy as it succeeds, so the instance that wrote answers with, and authenticates
// by, the new state at once (other instances take it from their next poll).
import { randomBytes } from 'node:crypto';
import type { BudgetSpec } from '../../infra/config/budget-spec.ts';
import type { StoredKey } from './key-table.ts';
import { sha256Hex, type RuntimeKeys } from './runtime-keys.ts';

export type KeyLimits = { rpm: number; tpm: number; concurrency: number };

export type NewKey = {
  id?: string;
  workspace: string;
  models?: string[];
  limits?: Partial<KeyLimits>;
  budget?: BudgetSpec | null;
  expires_at?: number | null;
  labels?: Record<string, string>;
};

export type KeyChange = Omit<NewKey, 'id' | 'workspace'>;

/** 32 random bytes: guessing one is as hard as guessing an AES-256 key. */
export const newSecret = (): string => `pg-${randomBytes(32).toString('base64url')}`;

const newId = (): string => `key-${randomBytes(8).toString('hex')}`;

const limitsOf = (l: Partial<KeyLimits> | undefined, base: KeyLimits): KeyLimits => ({
  rpm: l?.rpm ?? base.rpm,
  tpm: l?.tpm ?? base.tpm,
  concurrency: l?.concurrency ?? base.concurrency,
});

/** Creates a key; undefined when its id is taken. The secret is returned here and never stored. */
export async function createKey(
  keys: RuntimeKeys,
  input: NewKey,
): Promise<{ key: StoredKey; secret: string } | undefined> {
  const now = keys.now();
  const secret = newSecret();
  const key: StoredKey = {
    id: input.id ?? newId(),
    workspace: input.workspace,
    models: input.models ?? ['*'],
    limits: limitsOf(input.limits, { rpm: 0, tpm: 0, concurrency: 0 }),
    budget: input.budget ?? null,
    labels: input.labels ?? {},
    expires_at: input.expires_at ?? null,
    disabled: false,
    created_at: now,
    updated_at: now,
    secret_sha256: sha256Hex(secret),
    secret_hint: secret.slice(-4),
    previous_sha256: null,
    previous_valid_until: null,
    rev: 1,
  };
  if (!(await keys.table.create(key))) return undefined;
  keys.applyWrite(key);
  return { key, secret };
}

/**
 * Applies `change` to the stored key as a compare-and-set on its revision, read again and
 * retried when another write came first; undefined when the key does not exist.
 */
export async function changeKey(
  keys: RuntimeKeys,
  id: string,
  change: (k: StoredKey, now: number) => StoredKey,
): Promise<StoredKey | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await keys.table.get(id);
    if (!current) return undefined;
    const now = keys.now();
    const next = { ...change(current, now), id: current.id, rev: current.rev + 1, updated_at: now };
    const r = await keys.table.replace(next, current.rev);
    if (r === 'missing') return undefined;
    if (r === 'ok') {
      keys.applyWrite(next);
      return next;
    }
  }
  throw new Error(`key '${id}' kept changing under 8 attempts to write it`);
}

export const applyChange =
  (c: KeyChange) =>
  (k: StoredKey): StoredKey => ({
    ...k,
    models: c.models ?? k.models,
    limits: limitsOf(c.limits, k.limits),
    budget: c.budget === undefined ? k.budget : c.budget,
    labels: c.labels ?? k.labels,
    expires_at: c.expires_at === undefined ? k.expires_at : c.expires_at,
  });

/**
 * A new secret; the old one is refused at once (`graceSeconds` 0) or accepted until the grace
 * ends. A secret rotated away before stays refused: only the one just replaced gets a grace.
 */
export async function rotateKey(
  keys: RuntimeKeys,
  id: string,
  graceSeconds: number,
): Promise<{ key: StoredKey; secret: string } | undefined> {
  const secret = newSecret();
  const key = await changeKey(keys, id, (k, now) => ({
    ...k,
    secret_sha256: sha256Hex(secret),
    secret_hint: secret.slice(-4),
    previous_sha256: graceSeconds > 0 ? k.secret_sha256 : null,
    previous_valid_until: graceSeconds > 0 ? now + graceSeconds * 1000 : null,
  }));
  return key && { key, secret };
}

export async function deleteKey(keys: RuntimeKeys, id: string): Promise<boolean> {
  const had = await keys.table.delete(id);
  if (had) keys.applyWrite({ deleted: id });
  return had;
}
