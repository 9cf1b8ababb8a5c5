// Why an upstream call failed, in the vocabulary of the retry and fallback metrics. Only these
// causes are worth another attempt: the request was fine, the upstream (or the way to it) was not.
import type { GatewayError } from '../ir/gateway-error.ts';
import type { retryCauses } from '../metrics/registry.ts';

export type FailureCause = (typeof retryCauses)[number];

/**
 * A refused or reset connection answers 502 like an upstream's own 502, but it is a different
 * cause (nothing reached the upstream); the code that sees the socket error marks it.
 */
const marked = new WeakMap<GatewayError, FailureCause>();

export function markCause(err: GatewayError, cause: FailureCause): GatewayError {
  marked.set(err, cause);
  return err;
}

/** The cause when the call may be repeated (connection, timeout, 408, 429, 5xx); undefined otherwise. */
export function failureCauseOf(err: GatewayError): FailureCause | undefined {
  const m = marked.get(err);
  if (m) return m;
  if (err.kind === 'timeout' || err.status === 408) return 'timeout';
  if (err.status === 429) return 'rate_limited';
  // 501 says the upstream will never do this; 499 is the client going away.
  if (err.status >= 500 && err.status !== 501) return 'server_error';
  return undefined;
}

/** Whether the failure counts against the upstream's breaker: throttling (429) is the upstream working as designed. */
export const breaksCircuit = (cause: FailureCause): boolean => cause !== 'rate_limited';
