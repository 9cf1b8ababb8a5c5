// OpenAI's error body {error: {message, type, param, code}}
// (https://platform.openai.com/docs/guides/error-codes): the shape Chat Completions, Responses
// and the audio endpoints answer errors in, so one encoder serves the three formats.
import type { ErrorKind, GatewayError } from '../../src/ir/gateway-error.ts';
import type { EncodedError } from './chat-adapter.ts';

export type OpenAiErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

const typeOfKind: Record<ErrorKind, string> = {
  'invalid-request': 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  'not-found': 'invalid_request_error',
  'payload-too-large': 'invalid_request_error',
  'rate-limit': 'rate_limit_error',
  upstream: 'server_error',
  overloaded: 'server_error',
  timeout: 'server_error',
  unavailable: 'server_error',
  internal: 'server_error',
};

function codeOf(err: GatewayError): string | null {
  switch (err.kind) {
    case 'authentication':
      return 'invalid_api_key';
    case 'not-found':
      return err.param === 'model' ? 'model_not_found' : null;
    case 'rate-limit':
      return 'rate_limit_exceeded';
    default:
      return null;
  }
}

export function openAiErrorBody(err: GatewayError): OpenAiErrorBody {
  return { error: { message: err.message, type: typeOfKind[err.kind], param: err.param, code: codeOf(err) } };
}

/** A polygate error as an OpenAI client sees it; `retry-after` in whole seconds when known. */
export function encodeOpenAiError(err: GatewayError): EncodedError {
  const headers = err.retryAfter !== undefined ? { 'retry-after': String(Math.ceil(err.retryAfter)) } : undefined;
  return { status: err.status, body: openAiErrorBody(err), ...(headers ? { headers } : {}) };
}
