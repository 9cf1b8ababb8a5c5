// OpenAI's error body {error: {message, type, param, code}}, both ways
// (https://platform.openai.com/docs/guides/error-codes). Clients get polygate's errors in that
// shape; an upstream's errors become GatewayErrors by HTTP status.
import { credentialsRejected, GatewayError, kindOfStatus, type ErrorKind } from '../../src/ir/gateway-error.ts';
import type { WireHeaders } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';
import { encodeOpenAiError } from '../shared/openai-error-body.ts';
import { retryAfterOf } from '../shared/retry-after.ts';

/** A polygate error as a Responses client sees it. */
export const encodeResponsesError = encodeOpenAiError;

/** The `code` of an in-stream `error` event and of `response.error` (ResponseErrorCode values). */
export function responsesErrorCode(err: GatewayError): string {
  switch (err.kind) {
    case 'rate-limit':
      return 'rate_limit_exceeded';
    case 'invalid-request':
      return 'invalid_prompt';
    default:
      return 'server_error';
  }
}

export type WireError = { message: string; type: string | null; param: string | null; code: string | null };

/** Reads {error: {...}} leniently: compatible servers send strings or bare objects too. */
export function wireErrorOf(body: unknown): WireError {
  const e = isObject(body) && body.error !== undefined ? body.error : body;
  if (typeof e === 'string') return { message: e.slice(0, 500), type: null, param: null, code: null };
  if (!isObject(e)) return { message: '', type: null, param: null, code: null };
  const s = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
  return { message: s(e.message) ?? '', type: s(e.type), param: s(e.param), code: s(e.code) };
}

/** An upstream HTTP error as a GatewayError; the upstream's status picks the kind. */
export function decodeResponsesUpstreamError(status: number, body: unknown, headers: WireHeaders): GatewayError {
  if (status === 401 || status === 403) {
    // polygate already accepted the client's key; the upstream refused polygate's provider key.
    // A gateway configuration fault: 502, and the upstream's text (which may quote the key) stays out.
    return credentialsRejected(
      `the openai-responses provider rejected the gateway's credentials (HTTP ${status}); check the provider's api_key`,
    );
  }
  const e = wireErrorOf(body);
  return new GatewayError(kindOfStatus(status), `openai-responses upstream error: ${e.message || `HTTP ${status}`}`, {
    param: e.param,
    retryAfter: retryAfterOf(headers),
  });
}

/** An `error` event or a failed response inside a stream. */
export function decodeResponsesStreamError(e: WireError): GatewayError {
  const kind: ErrorKind = e.code === 'rate_limit_exceeded' || e.type === 'rate_limit_error' ? 'rate-limit' : 'upstream';
  return new GatewayError(kind, `openai-responses upstream error: ${e.message || 'the stream reported an error'}`, {
    param: e.param,
  });
}
