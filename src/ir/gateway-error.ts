/**
 * One error type for the whole pipeline. `kind` is polygate's own classification; each adapter's
 * error encoder maps it onto its family's status and shape (README, "Families served").
 */
export type ErrorKind =
  | 'invalid-request' // 400
  | 'authentication' // 401
  | 'permission' // 403
  | 'not-found' // 404
  | 'payload-too-large' // 413
  | 'rate-limit' // 429
  | 'upstream' // 502: upstream answered something unusable
  | 'overloaded' // 503 / 529
  | 'timeout' // 504
  | 'unavailable' // 503: e.g. every route disabled
  | 'internal'; // 500

export const statusOfKind: Record<ErrorKind, number> = {
  'invalid-request': 400,
  authentication: 401,
  permission: 403,
  'not-found': 404,
  'payload-too-large': 413,
  'rate-limit': 429,
  upstream: 502,
  overloaded: 503,
  timeout: 504,
  unavailable: 503,
  internal: 500,
};

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  /** The request field at fault, as the client spelled it (e.g. `messages.0.content`). */
  readonly param: string | null;
  /** HTTP status; defaults from the kind, an upstream's own status may override it. */
  readonly status: number;
  /** Seconds, for 429 / 503 answers. */
  readonly retryAfter: number | undefined;
  /** Headers the answer carries besides the family's own (`x-should-retry: false` on a budget refusal). */
  readonly headers: Record<string, string> | undefined;
  /** An upstream refused polygate's own credential (or none could be had): every family answers 502. */
  readonly credentials: boolean;
  constructor(
    kind: ErrorKind,
    message: string,
    opts: {
      param?: string | null;
      status?: number;
      retryAfter?: number;
      headers?: Record<string, string>;
      credentials?: boolean;
    } = {},
  ) {
    super(message);
    this.kind = kind;
    this.param = opts.param ?? null;
    this.status = opts.status ?? statusOfKind[kind];
    this.retryAfter = opts.retryAfter;
    this.headers = opts.headers;
    this.credentials = opts.credentials ?? false;
  }
}

/**
 * An upstream refused polygate's credential, or none could be had (a token fetch failed): the
 * operator's fault, a 502 naming the provider in every family (docs/providers.md).
 */
export const credentialsRejected = (message: string): GatewayError =>
  new GatewayError('upstream', message, { credentials: true });

export const invalid = (param: string, message: string): GatewayError =>
  new GatewayError('invalid-request', message.includes(param) ? message : `${param}: ${message}`, { param });

/** Maps an upstream HTTP status onto a kind, for upstream decoders. */
export function kindOfStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid-request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not-found';
  if (status === 413) return 'payload-too-large';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate-limit';
  if (status === 503 || status === 529) return 'overloaded';
  return status >= 500 ? 'internal' : 'upstream';
}
