import type { IncomingHttpHeaders } from 'node:http';

/** The Responses WebSocket `error` event (openai's ResponsesServerEvent.ResponseWsError). */
export type WsError = {
  type: 'error';
  status: number;
  error: { type: string; code: string | null; message: string; param: string | null; headers?: Record<string, string> };
  stream_id?: string;
};

const typeOfStatus = (status: number): string =>
  status === 401
    ? 'authentication_error'
    : status === 403
      ? 'permission_error'
      : status === 404
        ? 'not_found_error'
        : status === 429
          ? 'rate_limit_error'
          : status >= 500
            ? 'server_error'
            : 'invalid_request_error';

export const socketError = (status: number, code: string | null, message: string, param: string | null): WsError => ({
  type: 'error',
  status,
  error: { type: typeOfStatus(status), code, message, param },
});

/** Headers of an HTTP error worth the client's reading (when to retry, which request it was). */
const keptHeaders = ['retry-after', 'x-request-id', 'x-polygate-route'];

/**
 * The HTTP pipeline's error answer as the socket's `error` event: its OpenAI error object as it
 * is, its status and telling headers beside it. A `previous_response_id` the socket and the store
 * do not know is `previous_response_not_found` (400), the code clients of the protocol act on
 * (they resend the whole input).
 */
export function wsErrorOfHttp(
  status: number,
  text: string,
  headers: IncomingHttpHeaders,
  streamId: string | undefined,
): WsError {
  let parsed: { error?: { type?: unknown; code?: unknown; message?: unknown; param?: unknown } } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const e = parsed?.error;
  const param = typeof e?.param === 'string' ? e.param : null;
  const err = socketError(
    status,
    typeof e?.code === 'string' ? e.code : null,
    typeof e?.message === 'string' ? e.message : text.slice(0, 500),
    param,
  );
  if (typeof e?.type === 'string') err.error.type = e.type;
  if (status === 404 && param === 'previous_response_id') {
    err.status = 400;
    err.error = { ...err.error, type: 'invalid_request_error', code: 'previous_response_not_found' };
  }
  const kept = Object.fromEntries(
    keptHeaders.flatMap((h) => (typeof headers[h] === 'string' ? [[h, headers[h]]] : [])),
  );
  if (Object.keys(kept).length > 0) err.error.headers = kept;
  if (streamId !== undefined) err.stream_id = streamId;
  return err;
}

/** A message that would take what all sockets hold past `responses_websocket.max_total_bytes`. */
export const memoryLimitError = (used: number, bytes: number, max: number): WsError =>
  socketError(
    503,
    'websocket_memory_limit_reached',
    `polygate's Responses WebSockets hold ${used} bytes, and this message (${bytes}) would pass the ${max} they may hold together (responses_websocket.max_total_bytes); retry later or over HTTP`,
    null,
  );

/**
 * The answer to `response.steer`. polygate streams each response through to its end on every
 * upstream: it has no safe output boundary at which to stop and commit new input, so it answers
 * as the protocol says a server without steering does (`response.steer.failed`,
 * `steering_not_supported`), input returned.
 */
export function steerFailed(e: Record<string, unknown>): Record<string, unknown> {
  const valid = typeof e.previous_response_id === 'string' && (typeof e.input === 'string' || Array.isArray(e.input));
  return {
    type: 'response.steer.failed',
    sequence_number: 0,
    steer: { input: e.input ?? null, previous_response_id: e.previous_response_id ?? null },
    error: valid
      ? {
          type: 'invalid_request_error',
          code: 'steering_not_supported',
          message: 'polygate does not steer responses; send the input in the next response.create',
        }
      : {
          type: 'invalid_request_error',
          code: 'invalid_input',
          message: 'response.steer needs previous_response_id (a string) and input (a string or an array of items)',
        },
  };
}
