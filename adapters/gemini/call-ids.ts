// Gemini function calls usually carry no id (FunctionCall.id is optional and the Gemini API
// rarely fills it: https://ai.google.dev/api/caching#FunctionCall), while the IR pairs a tool
// result with its call by id. Ids are therefore synthesized deterministically from the function
// name and its position, and a functionResponse without an id is matched to the oldest
// unanswered call of the same name, in order.

export const syntheticCallId = (name: string, n: number): string => `call_${name}_${n}`;

/**
 * Ids polygate made up are not sent to Gemini: only ids Gemini itself issued go back. Plain string
 * tests, not a RegExp built from the name: a long client-chosen name made one too large to compile.
 */
export function isSyntheticCallId(id: string, name: string): boolean {
  const prefix = `call_${name}_`;
  return id.length > prefix.length && id.startsWith(prefix) && /^\d+$/.test(id.slice(prefix.length));
}

/** Walks one conversation in order, handing out call ids and matching responses back. */
export class CallIdMatcher {
  // Made at the first call or response: most requests hold neither (issue #28, bytes per request).
  #count: Map<string, number> | undefined;
  #pending: Map<string, string[]> | undefined;

  /** The id of a functionCall: its own if it has one, else `call_<name>_<n>` (n-th call of that name). */
  call(name: string, id: string | undefined): string {
    this.#count ??= new Map();
    this.#pending ??= new Map();
    const n = this.#count.get(name) ?? 0;
    this.#count.set(name, n + 1);
    const callId = id ?? syntheticCallId(name, n);
    const queue = this.#pending.get(name) ?? [];
    queue.push(callId);
    this.#pending.set(name, queue);
    return callId;
  }

  /** The call id a functionResponse answers: its own id, else the oldest open call of that name. */
  response(name: string, id: string | undefined): string {
    this.#count ??= new Map();
    const queue = this.#pending?.get(name) ?? [];
    if (id !== undefined) {
      const at = queue.indexOf(id);
      if (at >= 0) queue.splice(at, 1);
      return id;
    }
    const next = queue.shift();
    if (next !== undefined) return next;
    // A response with no call before it (history trimmed by the caller): still a stable id.
    const n = this.#count.get(name) ?? 0;
    this.#count.set(name, n + 1);
    return syntheticCallId(name, n);
  }
}
