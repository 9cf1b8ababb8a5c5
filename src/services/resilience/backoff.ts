import type { RetriesConfig } from '../../infra/config/gateway-config.ts';

/**
 * Milliseconds to wait before retry number `retry` (1-based), or undefined when the route should
 * be given up instead. An upstream's Retry-After wins: it knows when it will take requests again;
 * one longer than `max_retry_after_ms` sends the request to the next route rather than holding
 * the client. Otherwise exponential backoff with "equal jitter": between half and all of
 * `base * 2^(retry-1)`, capped, so instances that failed together do not retry together, and no
 * retry comes back at once.
 */
export function backoffDelay(
  retry: number,
  policy: RetriesConfig,
  retryAfterS: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterS !== undefined) {
    const ms = retryAfterS * 1000;
    if (ms > policy.max_retry_after_ms) return undefined;
    // A little extra on top, never less: the upstream said "not before".
    return Math.round(ms + random() * Math.min(ms * 0.1, 1000));
  }
  const cap = Math.min(policy.max_delay_ms, policy.base_delay_ms * 2 ** Math.min(retry - 1, 30));
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/** Resolves after `ms`, or at once when the signal aborts (the client left: nothing to wait for). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
