/** What `fn` throws (undefined when it does not), for matching a GatewayError's fields. */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** What `p` rejects with (undefined when it resolves), for matching an SDK's error. */
export const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
