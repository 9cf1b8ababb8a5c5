// The contracts every chat wire-format adapter implements. Adapters are pure: no Koa, no I/O,
// no globals (docs/architecture.md); the pipeline in src/ does the talking.
import type { BuiltinTool, ChatRequest } from '../../src/ir/chat-request.ts';
import type { WireFormat } from '../../src/ir/wire-format.ts';
import type { RoutingFields } from './routing-fields.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import type { GatewayError } from '../../src/ir/gateway-error.ts';

/** One server-sent event. `event` is omitted for formats that frame with `data:` lines only. */
export type SseFrame = { event?: string; data: string };

export type WireHeaders = Record<string, string | string[] | undefined>;

/** What the pipeline knows about the inbound HTTP request, beyond the body. */
export type InboundContext = {
  headers: WireHeaders;
  /** Path parameters, e.g. Gemini's `{model}`. */
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  /** Was streaming chosen by the route itself (Gemini streamGenerateContent)? */
  streamByRoute?: boolean;
};

export type EncodedError = { status: number; body: unknown; headers?: Record<string, string> };

/** Encodes an IR stream into one client's SSE frames, event by event. Stateful, one per stream. */
export interface ClientStreamEncoder {
  /**
   * Frames to write for this event (possibly none). The array may be the encoder's own, reused
   * by its next `push` (issue #28: no array per chunk): read it before then, never add to it.
   */
  push(event: StreamEvent): SseFrame[];
}

/** A chat format as spoken by clients of polygate. */
export interface ChatClientCodec {
  /** Its format module's name (adapters/shared/format-module.ts): a client format need not have an upstream side. */
  readonly format: string;
  /**
   * Reads only what routing needs (adapters/shared/routing-fields.ts); throws GatewayError naming
   * the field when even that is missing. A same-format route relays the body after this alone.
   */
  peekRequest(body: unknown, ctx: InboundContext): RoutingFields;
  /** Validates and decodes a request body; throws GatewayError naming the field. */
  decodeRequest(body: unknown, ctx: InboundContext): ChatRequest;
  /** `requestModel` is the model name to report back (the client's name). */
  encodeResult(result: ChatResult, request: ChatRequest): unknown;
  createStreamEncoder(request: ChatRequest): ClientStreamEncoder;
  encodeError(error: GatewayError): EncodedError;
}

export type UpstreamHttpRequest = {
  /** Path relative to the provider's base_url, with query string. */
  path: string;
  body: unknown;
  /** Extra headers the format needs (auth is added by the provider). */
  headers: Record<string, string>;
};

/** Decodes an upstream's SSE stream into IR events. Stateful, one per stream. */
export interface UpstreamStreamDecoder {
  /**
   * One parsed SSE event (event name may be undefined). The array returned may be the decoder's
   * own, reused for the next frame (issue #28: no array per upstream chunk): read it before the
   * next `push` or `end`, and never add to it.
   */
  push(frame: { event?: string; data: string }): StreamEvent[];
  /** Called when the upstream stream ends; returns closing events (or an error if it ended early). Read as `push`'s. */
  end(): StreamEvent[];
}

/** A chat format as spoken by upstream providers. */
export interface ChatUpstreamCodec {
  readonly format: ChatFormat;
  /** The provider-run tools this format can carry; others are dropped or refused before encoding (src/families/chat/hosted-tool-policy.ts). */
  readonly hostedTools: ReadonlySet<BuiltinTool['kind']>;
  /** `upstreamModel` is the provider's model name from the route. Throws GatewayError for fields it must reject. */
  encodeRequest(request: ChatRequest, upstreamModel: string, warn: WarningSink): UpstreamHttpRequest;
  decodeResult(body: unknown): ChatResult;
  createStreamDecoder(): UpstreamStreamDecoder;
  /** Maps an upstream error status and body onto a GatewayError (body already parsed if JSON). */
  decodeError(status: number, body: unknown, headers: WireHeaders): GatewayError;
}

/** Collects "dropped field" warnings (x-polygate-warnings header and metric). */
export type WarningSink = (field: string, message: string) => void;

/** The chat wire formats, by their one name (src/ir/wire-format.ts). */
export type ChatFormat = Extract<WireFormat, 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini'>;

/**
 * Same-format pass-through: where a client's raw body goes on an upstream of the same format and
 * how the model is renamed in it. Everything else in the body is relayed untouched.
 */
export type RelayTarget = (
  body: Record<string, unknown>,
  upstreamModel: string,
  stream: boolean,
  /** The client's query string: a format relays the parameters of its own API, never credentials. */
  query?: Record<string, string | undefined>,
) => RelayedBody;

/**
 * Where a relayed body goes and what is sent. `clientStream`: the relay asked the upstream for
 * more than the client did (Chat's usage chunk, so that every stream is billed): each 2xx stream's
 * text passes through a fresh filter on its way to the client, which takes out what the client did
 * not ask for, so the client sees the stream it would have had.
 */
export type RelayedBody = { path: string; body: Record<string, unknown>; clientStream?: () => StreamTextFilter };

/** Rewrites a relayed SSE stream's text, event by event: `push` a chunk, `end` for what it held back. */
export type StreamTextFilter = { push(text: string): string; end(): string };
