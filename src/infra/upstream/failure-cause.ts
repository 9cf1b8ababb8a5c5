// The one classifier of failed upstream calls, for translated calls, relays, speech and music
// tasks alike: why a call failed, in the vocabulary of the retry and fallback metrics, and so
// whether another attempt (a retry, the next route, a later poll) may do better. Only these causes
// are worth one: the request was fine, the upstream (or the way to it) was not. How long to wait
// (the upstream's Retry-After, capped) is src/services/resilience/backoff.ts.
import type { GatewayError } from '../../ir/gateway-error.ts';
import type { retryCauses } from '../metrics/registry.ts';

export type FailureCause = (typeof retryCauses)[number];

/**
 * A refused or reset connection answers 502 like an upstream's own 502, but it is a different
 * cause (nothing reached the upstream); the code that sees the socket error marks it
 * (src/infra/upstream/connection-error.ts).
 */
const marked = new WeakMap<GatewayError, FailureCause>();

export function markCause(err: GatewayError, cause: FailureCause): GatewayError {
  marked.set(err, cause);
  return err;
}

/**
 * The cause of an upstream HTTP status worth another attempt (408, 429, 5xx), else undefined.
 * 501 says the upstream will never do this; 499 is the client going away.
 */
export function statusCause(status: number): FailureCause | undefined {
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500 && status !== 501) return 'server_error';
  return undefined;
}

/** Whether an upstream status is worth another attempt: the upstream is throttling, timing out or failing. */
export const retryableStatus = (status: number): boolean => statusCause(status) !== undefined;

/** The cause when the call may be repeated (connection, timeout, 408, 429, 5xx); undefined otherwise. */
export function failureCauseOf(err: GatewayError): FailureCause | undefined {
  const m = marked.get(err);
  if (m) return m;
  if (err.kind === 'timeout') return 'timeout';
  return statusCause(err.status);
}

/** Whether another attempt may do better than this failure: the upstream failed, not the request. */
export const isRetryable = (err: GatewayError): boolean => failureCauseOf(err) !== undefined;

/** Whether the failure counts against the upstream's breaker: throttling (429) is the upstream working as designed. */
export const breaksCircuit = (cause: FailureCause): boolean => cause !== 'rate_limited';
