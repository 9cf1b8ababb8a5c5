// Ids and timestamps for objects polygate mints in the Responses wire format. OpenAI ids are a
// type prefix plus hex (`resp_67cc…`, `msg_…`, `rs_…`, `fc_…`;
// https://platform.openai.com/docs/api-reference/responses/object). The source is injectable so
// golden tests are deterministic; the default uses the Web Crypto global, no module state.

export type IdSource = {
  /** A fresh id with the given prefix, e.g. `resp` → `resp_3f…`. */
  newId(prefix: 'resp' | 'msg' | 'rs' | 'fc' | 'ctc' | 'ig' | 'ws'): string;
  /** Unix time in seconds. */
  now(): number;
};

/**
 * 48 hex digits: a UUID's 32 and the first 16 of another's, dashes left out by position (a UUID is
 * 8-4-4-4-12), not by a regular expression's replace per UUID.
 */
export function hexOfUuids(a: string, b: string): string {
  return (
    a.slice(0, 8) +
    a.slice(9, 13) +
    a.slice(14, 18) +
    a.slice(19, 23) +
    a.slice(24) +
    b.slice(0, 8) +
    b.slice(9, 13) +
    b.slice(14, 18)
  );
}

export const randomIds: IdSource = {
  newId: (prefix) => `${prefix}_${hexOfUuids(globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID())}`,
  now: () => Math.floor(Date.now() / 1000),
};

/** Deterministic ids for tests and fixtures: `resp_0001`, `msg_0002`, … and a fixed clock. */
export function sequentialIds(now = 1_700_000_000): IdSource {
  let n = 0;
  return {
    newId: (prefix) => `${prefix}_${String(++n).padStart(4, '0')}`,
    now: () => now,
  };
}

/** OpenAI reasoning item ids; an item's encrypted_content is bound to its id. */
export const isReasoningItemId = (s: string | undefined): s is string =>
  s !== undefined && /^rs_[A-Za-z0-9_-]+$/.test(s);
