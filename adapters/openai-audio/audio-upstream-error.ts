// An OpenAI-compatible audio upstream's error answer {error: {message, type, param, code}}
// (https://platform.openai.com/docs/guides/error-codes) as a GatewayError.
import { GatewayError, kindOfStatus } from '../../src/ir/gateway-error.ts';
import { isObject } from '../shared/narrow.ts';

type WireError = { message: string; param: string | null };

/** Lenient: compatible servers send {error: {...}}, {error: "text"}, {detail} or plain text. */
function wireErrorOf(body: unknown): WireError {
  const e = isObject(body) && body.error !== undefined ? body.error : body;
  if (typeof e === 'string') return { message: e.slice(0, 500), param: null };
  if (!isObject(e)) return { message: '', param: null };
  const s = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return { message: (s(e.message) ?? s(e.detail) ?? '').slice(0, 500), param: s(e.param) };
}

/** `retryAfterSeconds` comes from the upstream's retry-after headers, read by the caller. */
export function decodeAudioUpstreamError(status: number, body: unknown, retryAfterSeconds?: number): GatewayError {
  if (status === 401 || status === 403) {
    // The client's key was valid (polygate checked it); the upstream refused polygate's own
    // provider key. A gateway configuration fault: 502, and no key is echoed.
    return new GatewayError(
      'upstream',
      `the openai-audio provider rejected the gateway's credentials (HTTP ${status}); check the provider's api_key`,
    );
  }
  const e = wireErrorOf(body);
  const opts = { param: e.param, ...(retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {}) };
  return new GatewayError(kindOfStatus(status), `openai-audio upstream error: ${e.message || `HTTP ${status}`}`, opts);
}
