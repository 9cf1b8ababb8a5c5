// Gemini's error body: {error: {code, message, status}} with google.rpc status names
// (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes), both ways.
import { credentialsRejected, GatewayError, kindOfStatus, type ErrorKind } from '../../src/ir/gateway-error.ts';
import type { EncodedError, WireHeaders } from '../shared/chat-adapter.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { retryAfterHeader } from '../shared/retry-after.ts';

const statusName: Record<GatewayError['kind'], string> = {
  'invalid-request': 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  'not-found': 'NOT_FOUND',
  'payload-too-large': 'PAYLOAD_TOO_LARGE',
  'rate-limit': 'RESOURCE_EXHAUSTED',
  upstream: 'INTERNAL',
  overloaded: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
  unavailable: 'UNAVAILABLE',
  internal: 'INTERNAL',
};

export function encodeGeminiError(err: GatewayError): EncodedError {
  // The spec's status table has no 502; an unusable upstream answer is INTERNAL (500) here. A
  // refused provider credential is a 502 in every family (docs/providers.md): gRPC's HTTP mapping
  // reads 502 as UNAVAILABLE.
  const status = err.kind === 'upstream' && !err.credentials ? 500 : err.status;
  const name = err.credentials ? 'UNAVAILABLE' : statusName[err.kind];
  const error: Json = { code: status, message: err.message, status: name };
  // Google's own 429s say when to retry in a RetryInfo detail; the header is kept too.
  if (err.retryAfter !== undefined)
    error.details = [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Math.ceil(err.retryAfter)}s` },
    ];
  return {
    status,
    body: { error },
    headers: err.retryAfter !== undefined ? { 'retry-after': String(Math.ceil(err.retryAfter)) } : undefined,
  };
}

type WireError = { code?: number; message: string; status?: string; details: unknown[] };

function wireErrorOf(body: unknown): WireError {
  const e = isObject(body) && body.error !== undefined ? body.error : body;
  if (typeof e === 'string') return { message: e.slice(0, 500), details: [] };
  if (!isObject(e)) return { message: '', details: [] };
  return {
    code: typeof e.code === 'number' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message : '',
    status: typeof e.status === 'string' ? e.status : undefined,
    details: Array.isArray(e.details) ? e.details : [],
  };
}

/** Seconds to wait: the retry-after header (seconds or HTTP date), else RetryInfo.retryDelay ("20s"). */
function retryAfterOf(headers: WireHeaders, details: unknown[]): number | undefined {
  const fromHeader = retryAfterHeader(headers);
  if (fromHeader !== undefined) return fromHeader;
  for (const d of details) {
    if (isObject(d) && typeof d.retryDelay === 'string') {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay);
      if (m) return Math.ceil(Number(m[1]));
    }
  }
  return undefined;
}

/** Google answers a bad API key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID, not 401. */
const isKeyProblem = (e: WireError): boolean =>
  e.details.some((d) => isObject(d) && (d.reason === 'API_KEY_INVALID' || d.reason === 'API_KEY_SERVICE_BLOCKED')) ||
  /API key not valid/i.test(e.message);

/** An upstream HTTP error as a GatewayError; the HTTP status picks the kind. */
export function decodeGeminiUpstreamError(status: number, body: unknown, headers: WireHeaders): GatewayError {
  const e = wireErrorOf(body);
  if (status === 401 || status === 403 || isKeyProblem(e)) {
    // polygate already accepted the client's key; the upstream refused polygate's provider key.
    // That is the gateway's configuration fault: 502, and the key is never echoed.
    return credentialsRejected(
      `the gemini provider rejected the gateway's credentials (HTTP ${status}${e.status ? ` ${e.status}` : ''}); check the provider's api_key`,
    );
  }
  const detail = e.message || e.status || `HTTP ${status}`;
  return new GatewayError(kindOfStatus(status), `gemini upstream error: ${detail}`, {
    retryAfter: retryAfterOf(headers, e.details),
  });
}

/** An `{error}` chunk inside a stream: the upstream failed after the stream began. */
export function decodeGeminiStreamError(body: unknown): GatewayError {
  const e = wireErrorOf(body);
  const kind: ErrorKind =
    e.code === undefined || e.code < 400 || e.code === 401 || e.code === 403 ? 'upstream' : kindOfStatus(e.code);
  return new GatewayError(kind, `gemini upstream error: ${e.message || e.status || 'the stream reported an error'}`, {
    retryAfter: retryAfterOf({}, e.details),
  });
}
