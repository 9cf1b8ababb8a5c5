/** What `fn` throws (undefined when it does not), for matching a GatewayError's fields. */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}
