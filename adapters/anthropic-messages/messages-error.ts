// Errors both ways. Client side: `{type: 'error', error: {type, message, code}}` with the spec's
// Messages type words (README, "Families served"); the HTTP status carries the class, which
// is what the official SDKs branch on. Upstream side: https://docs.anthropic.com/en/api/errors
import { credentialsRejected, GatewayError, kindOfStatus, type ErrorKind } from '../../src/ir/gateway-error.ts';
import type { EncodedError, WireHeaders } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';

const typeOfStatus: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'server_error',
  502: 'server_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function errorTypeOf(err: GatewayError): string {
  const known = typeOfStatus[err.status];
  if (known !== undefined) return known;
  return err.status < 500 ? 'invalid_request_error' : 'server_error';
}

export function errorBodyOf(err: GatewayError): {
  type: 'error';
  error: { type: string; message: string; code: string };
} {
  const type = errorTypeOf(err);
  return { type: 'error', error: { type, message: err.message, code: type } };
}

export function encodeMessagesError(err: GatewayError): EncodedError {
  return {
    status: err.status,
    body: errorBodyOf(err),
    ...(err.retryAfter !== undefined ? { headers: { 'retry-after': String(err.retryAfter) } } : {}),
  };
}

/** Anthropic's error types, for errors that arrive inside a stream (no HTTP status then). */
const kindOfType: Record<string, ErrorKind> = {
  invalid_request_error: 'invalid-request',
  authentication_error: 'upstream',
  permission_error: 'upstream',
  not_found_error: 'not-found',
  request_too_large: 'payload-too-large',
  rate_limit_error: 'rate-limit',
  api_error: 'internal',
  overloaded_error: 'overloaded',
  timeout_error: 'timeout',
};

function wireError(body: unknown): { type?: string; message?: string } {
  if (!isObject(body) || !isObject(body.error)) return {};
  const { type, message } = body.error;
  return { ...(typeof type === 'string' ? { type } : {}), ...(typeof message === 'string' ? { message } : {}) };
}

function retryAfterOf(headers: WireHeaders): number | undefined {
  const raw = headers['retry-after'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : undefined;
}

const credentialsMessage = (status: number): string =>
  `anthropic upstream rejected the gateway's provider credentials (status ${status}); the operator must check the provider key`;

/** An upstream HTTP error. The message says where it came from; a bad provider key is a 502. */
export function decodeMessagesError(status: number, body: unknown, headers: WireHeaders): GatewayError {
  const retryAfter = retryAfterOf(headers);
  if (status === 401 || status === 403) return credentialsRejected(credentialsMessage(status));
  const { message } = wireError(body);
  const text =
    message ?? (typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : `status ${status}`);
  return new GatewayError(kindOfStatus(status), `anthropic upstream: ${text}`, {
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  });
}

/** An `event: error` inside an upstream stream. */
export function decodeStreamError(data: unknown): GatewayError {
  const { type, message } = wireError(data);
  const kind = type !== undefined && Object.hasOwn(kindOfType, type) ? kindOfType[type] : 'upstream';
  if (type === 'authentication_error' || type === 'permission_error')
    return credentialsRejected(credentialsMessage(type === 'authentication_error' ? 401 : 403));
  return new GatewayError(kind, `anthropic upstream: ${message ?? type ?? 'stream error'}`);
}
