// OpenAI's error body {error: {message, type, param, code}}, both ways
// (https://platform.openai.com/docs/guides/error-codes, https://platform.openai.com/docs/api-reference/chat).
import { credentialsRejected, GatewayError, kindOfStatus, type ErrorKind } from '../../src/ir/gateway-error.ts';
import type { WireHeaders } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';
import { encodeOpenAiError, openAiErrorBody } from '../shared/openai-error-body.ts';
import { retryAfterOf } from '../shared/retry-after.ts';

export const chatErrorBody = openAiErrorBody;

/** A polygate error as a Chat Completions client sees it. */
export const encodeChatError = encodeOpenAiError;

type WireError = { message: string; param: string | null; type: string | null; code: string | null };

/** Reads {error: {...}} leniently: compatible servers send strings, bare objects or text. */
function wireErrorOf(body: unknown): WireError {
  const e = isObject(body) && body.error !== undefined ? body.error : body;
  if (typeof e === 'string') return { message: e.slice(0, 500), param: null, type: null, code: null };
  if (!isObject(e)) return { message: '', param: null, type: null, code: null };
  const s = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
  return { message: s(e.message) ?? s(e.detail) ?? '', param: s(e.param), type: s(e.type), code: s(e.code) };
}

/** An upstream HTTP error as a GatewayError; the upstream's status picks the kind. */
export function decodeChatUpstreamError(status: number, body: unknown, headers: WireHeaders): GatewayError {
  const e = wireErrorOf(body);
  if (status === 401 || status === 403) {
    // The client's own key was fine (polygate checked it); the upstream refused polygate's
    // provider key. That is a gateway configuration fault: 502, and the key is never echoed.
    return credentialsRejected(
      `the openai-chat provider rejected the gateway's credentials (HTTP ${status}); check the provider's api_key`,
    );
  }
  const kind = kindOfStatus(status);
  const detail = e.message || `HTTP ${status}`;
  return new GatewayError(kind, `openai-chat upstream error: ${detail}`, {
    param: e.param,
    retryAfter: retryAfterOf(headers),
  });
}

/** An `{error}` object inside a stream: the upstream failed after the stream began. */
export function decodeChatStreamError(body: unknown): GatewayError {
  const e = wireErrorOf(body);
  const kind: ErrorKind = e.type === 'rate_limit_error' || e.code === 'rate_limit_exceeded' ? 'rate-limit' : 'upstream';
  return new GatewayError(kind, `openai-chat upstream error: ${e.message || 'the stream reported an error'}`, {
    param: e.param,
  });
}
