// Ids and timestamps for objects polygate mints in the Responses wire format. OpenAI ids are a
// type prefix plus hex (`resp_67cc…`, `msg_…`, `rs_…`, `fc_…`;
// https://platform.openai.com/docs/api-reference/responses/object). The source is injectable so
// golden tests are deterministic; the default draws from the Web Crypto global (prepared-turns.ts
// mints its `resp_` ids the same way: 24 random bytes in hex).

export type IdSource = {
  /** A fresh id with the given prefix, e.g. `resp` → `resp_3f…`. */
  newId(prefix: 'resp' | 'msg' | 'rs' | 'fc' | 'ctc' | 'ig' | 'ws'): string;
  /** Unix time in seconds. */
  now(): number;
};

/**
 * Random bytes drawn for 256 ids at a time (the Web Crypto global: adapters do no I/O of their
 * own), each id's 24 decoded to hex at once: `crypto.randomUUID()` twice per id built each UUID
 * from ~20 short strings and then had a regular expression take its dashes out (~1 KB of garbage
 * and ~0.9 µs an id; this is one string and ~0.3 µs, bench/RESULTS.md session 12).
 */
const idBytes = 24;
const pool = Buffer.alloc(idBytes * 256);
let used = pool.length;

/** 48 random lowercase hex digits. */
export function randomHex(): string {
  if (used === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    used = 0;
  }
  const at = used;
  used += idBytes;
  return pool.toString('hex', at, at + idBytes);
}

export const randomIds: IdSource = {
  newId: (prefix) => `${prefix}_${randomHex()}`,
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
