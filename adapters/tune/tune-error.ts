// The `tune` format answers every failure in its envelope with a non-`success` code (spec, "Errors").
// The codes are polygate's own, stable strings a client can branch on (listed in docs/tune.md).
import { GatewayError, type ErrorKind } from '../../src/ir/gateway-error.ts';
import type { EncodedError } from '../shared/chat-adapter.ts';

const codeOfKind: Record<ErrorKind, string> = {
  'invalid-request': 'invalid_request',
  authentication: 'unauthorized',
  permission: 'forbidden',
  'not-found': 'not_found',
  'payload-too-large': 'payload_too_large',
  'rate-limit': 'rate_limited',
  upstream: 'upstream_error',
  overloaded: 'unavailable',
  timeout: 'timeout',
  unavailable: 'unavailable',
  internal: 'internal_error',
};

/** A `tune` error whose envelope code is more specific than its kind's (e.g. `endpoint_unavailable`). */
export class TuneError extends GatewayError {
  readonly code: string;
  constructor(
    code: string,
    kind: ErrorKind,
    message: string,
    opts: { param?: string | null; status?: number; retryAfter?: number } = {},
  ) {
    super(kind, message, opts);
    this.code = code;
  }
}

/**
 * Upload and concat are marked unavailable by the spec. 501 Not Implemented says "this server
 * does not support the function" (not "try again later", which 503 would), and it is not retried
 * by the router; the code `endpoint_unavailable` lets clients tell it from a transient outage.
 */
export function endpointUnavailable(endpoint: string): TuneError {
  return new TuneError(
    'endpoint_unavailable',
    'unavailable',
    `${endpoint} is unavailable: the service marks audio upload and clip concatenation as unavailable`,
    {
      status: 501,
    },
  );
}

export function encodeTuneError(err: GatewayError): EncodedError {
  return {
    status: err.status,
    body: { code: err instanceof TuneError ? err.code : codeOfKind[err.kind], message: err.message, data: null },
    headers: err.retryAfter !== undefined ? { 'retry-after': String(err.retryAfter) } : undefined,
  };
}
