// The ledger's bounded wait (usage.store_wait_ms, docs/usage-and-tracing.md): a store that hangs
// (Redis reconnecting, or stopped) must not hold a request for seconds.

/** The store did not answer within the bounded wait. */
export class StoreWaitError extends Error {}

/** `p`, or a StoreWaitError after `ms`. */
export function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreWaitError(`the usage store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
