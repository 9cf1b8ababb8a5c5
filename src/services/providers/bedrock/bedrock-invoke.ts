// Bedrock's InvokeModel envelope around Anthropic's Messages body (docs/providers.md, "Bedrock"):
// the body without `model` and `stream` (the model is in the path, the stream in the operation)
// and with `anthropic_version: bedrock-2023-05-31` and the betas as `anthropic_beta`; a streamed
// answer is an event stream whose `chunk` events carry each Messages event base64-encoded; errors
// are named by `x-amzn-errortype` (HTTP) or `:exception-type` (in the stream).
import type { UpstreamHttpRequest, WireHeaders } from '../../../../adapters/shared/chat-adapter.ts';
import { GatewayError, kindOfStatus } from '../../../ir/gateway-error.ts';
import type { EventStreamMessage } from '../../../infra/upstream/read-event-stream.ts';
import { messagesEnvelope } from '../envelope-relay.ts';

export const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/** The InvokeModel path of a model id, inference profile or ARN (encoded: ids hold `:`, ARNs `/`). */
export const invokePath = (model: string, stream: boolean): string =>
  `/model/${encodeURIComponent(model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;

/** A Messages request as encoded for Anthropic's API → the InvokeModel body. */
export const invokeBody = (enc: UpstreamHttpRequest): Record<string, unknown> =>
  relayBody(enc.body as Record<string, unknown>, enc.headers['anthropic-beta']);

/** A client's (or the encoder's) Messages body and its `anthropic-beta` header → the InvokeModel body. */
export const relayBody = (
  body: Record<string, unknown>,
  betas: string | readonly string[] | undefined,
): Record<string, unknown> => messagesEnvelope(body, betas, bedrockAnthropicVersion, ['model', 'stream']);

/** An InvokeModelWithResponseStream `chunk` as the Messages SSE frame it carries, byte for byte. */
export const sseText = (frame: { event: string; data: string }): string =>
  `event: ${frame.event}\ndata: ${frame.data}\n\n`;

/** Bedrock's error types and the status each stands for (some arrive under another HTTP status). */
const statusOfType: Record<string, number> = {
  ThrottlingException: 429,
  ServiceQuotaExceededException: 429,
  ModelNotReadyException: 429,
  ServiceUnavailableException: 503,
  InternalServerException: 500,
  ModelStreamErrorException: 500,
  ModelTimeoutException: 408,
  ModelErrorException: 502,
  ValidationException: 400,
  ResourceNotFoundException: 404,
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  InvalidSignatureException: 403,
  ExpiredTokenException: 403,
};

/** `ThrottlingException:http://internal.amazon.com/…` → `ThrottlingException`; stream types are camel-cased. */
const typeName = (raw: string | undefined): string | undefined => {
  const t = raw?.split(':')[0];
  return t ? t[0].toUpperCase() + t.slice(1) : undefined;
};

/** The status an error stands for: its type's, else the HTTP status it came with. */
export function bedrockErrorStatus(status: number, rawType: string | undefined): number {
  const type = typeName(rawType);
  return (type && statusOfType[type]) || status;
}

/** A Bedrock error (HTTP or in-stream) as a GatewayError; 401/403 never reach here (the provider answers those). */
export function bedrockError(status: number, rawType: string | undefined, body: unknown): GatewayError {
  const type = typeName(rawType);
  const effective = bedrockErrorStatus(status, rawType);
  const message =
    typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
      ? (body as { message: string }).message
      : typeof body === 'string' && body.trim() !== ''
        ? body.trim().slice(0, 500)
        : `status ${status}`;
  const kind = effective === 502 ? 'upstream' : kindOfStatus(effective);
  // The status follows the kind: a ModelTimeoutException is the gateway's 504, not the client's 408.
  return new GatewayError(kind, `bedrock upstream${type ? ` (${type})` : ''}: ${message}`);
}

export const errorTypeOf = (headers: WireHeaders): string | undefined => {
  const v = headers['x-amzn-errortype'];
  return Array.isArray(v) ? v[0] : v;
};

/** What one event-stream message of InvokeModelWithResponseStream holds. */
export type InvokeStreamItem =
  | { kind: 'event'; frame: { event: string; data: string } }
  | { kind: 'error'; type: string | undefined; body: unknown }
  | { kind: 'skip' };

/** A `chunk` event → the Messages SSE frame it carries; an exception → its type and body. */
export function invokeStreamItem(m: EventStreamMessage): InvokeStreamItem {
  const text = new TextDecoder().decode(m.body);
  const messageType = m.headers[':message-type'];
  if (messageType === 'exception' || messageType === 'error')
    return {
      kind: 'error',
      type: m.headers[':exception-type'] ?? m.headers[':error-code'],
      body: parseOr(text, { message: m.headers[':error-message'] ?? text }),
    };
  if (m.headers[':event-type'] !== 'chunk') return { kind: 'skip' };
  const chunk = parseOr(text, undefined) as { bytes?: unknown } | undefined;
  if (typeof chunk?.bytes !== 'string')
    throw new GatewayError('upstream', 'bedrock upstream sent a chunk without bytes');
  const data = Buffer.from(chunk.bytes, 'base64').toString('utf8');
  const event = parseOr(data, undefined) as { type?: unknown } | undefined;
  if (typeof event?.type !== 'string')
    throw new GatewayError('upstream', 'bedrock upstream sent a chunk that is not a Messages event');
  return { kind: 'event', frame: { event: event.type, data } };
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
