// Ids and timestamps for objects polygate mints in the Responses wire format. OpenAI ids are a
// type prefix plus hex (`resp_67cc…`, `msg_…`, `rs_…`, `fc_…`;
// https://platform.openai.com/docs/api-reference/responses/object). The source is injectable so
// golden tests are deterministic and a server can draw them from a pool of its own.

export type IdSource = {
  /** A fresh id with the given prefix, e.g. `resp` → `resp_3f…`. */
  newId(prefix: 'resp' | 'msg' | 'rs' | 'fc' | 'ctc' | 'ig' | 'ws'): string;
  /** Unix time in seconds. */
  now(): number;
};

/**
 * 24 random bytes in hex per id, from the Web Crypto global. A server passes its own source
 * (src/infra/formats/formats.ts: the process's pool of random bytes, one string an id); this
 * default keeps the adapter free of state.
 */
export const randomIds: IdSource = {
  newId: (prefix) => `${prefix}_${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(24))).toString('hex')}`,
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
