import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Url } from 'node:url';
import type { Dispatcher } from 'undici';
import type { ChatUpstreamCodec, WireHeaders } from '../../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';
import type { ChatResult } from '../../ir/chat-result.ts';
import { credentialsRejected, GatewayError } from '../../ir/gateway-error.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import { connectionError } from '../../infra/upstream/connection-error.ts';
import { PushedSse } from '../../infra/upstream/read-sse.ts';
import { relayTargetOf } from '../../infra/upstream/relay-target.ts';
import {
  defaultMaxAnswerBytes,
  errorBodyOf,
  jsonOrText,
  upstreamRequest,
  type UpstreamCall,
} from '../../infra/upstream/upstream-request.ts';
import { upstreamAnswer, upstreamStream, type UpstreamAnswer } from '../../infra/upstream/upstream-answer.ts';
import { scrubSecrets, secretMatcher } from './scrub-secrets.ts';
import type { CallOptions, ChatProvider } from './chat-provider.ts';
import type { UpstreamSpan } from '../../infra/tracing/upstream-span.ts';
import { bearerAuth } from '../../../adapters/shared/format-module.ts';
import { upstreamFormatOf } from '../../infra/formats/formats.ts';
import { azureAuthHeaders, upstreamPathOf } from './azure-openai.ts';
import { EntraTokenSource } from './entra-token.ts';

export type UpstreamTimeouts = { firstByteMs: number; idleMs: number };

/**
 * How long the relay keeps an idle upstream socket: less than the 5 s keep-alive timeout of
 * Node's, uvicorn's and Apache's servers. Setting it also makes node:http's Agent honour a
 * server's `Keep-Alive: timeout=N` (it then keeps the socket N − 1 s at most, and not at all when
 * N ≤ 1): without a timeout of its own the agent ignores that hint and keeps sockets until the
 * server closes them, and a relay sent just as the server closes one fails with ECONNRESET
 * (test/resilience/relay-keep-alive.test.ts). Only idle sockets are closed by it: a relay in
 * flight has no 'timeout' listener, its limits are the route's timeouts (relay-timers.ts).
 */
export const RELAY_IDLE_SOCKET_MS = 4_000;

/** How each provider type presents its key (its format's module, src/infra/formats/formats.ts); the client's credential is never forwarded. */
export function authHeaders(cfg: ProviderConfig): Record<string, string> {
  const key = cfg.api_key ?? '';
  if (cfg.type === 'azure-openai') return azureAuthHeaders(cfg);
  return upstreamFormatOf(cfg.type, cfg.api)?.upstream.authHeaders(key) ?? bearerAuth(key);
}

/** A chat upstream reached over HTTP and spoken to through one format codec. */
export class HttpChatProvider implements ChatProvider {
  readonly name: string;
  readonly type: string;
  readonly wireFormat: ChatUpstreamCodec['format'];
  readonly baseUrl: string;
  readonly #codec: ChatUpstreamCodec;
  readonly #headers: Record<string, string>;
  /**
   * The whole headers of a JSON call and of a stream's with the configured credentials (no Entra
   * ID), built once: a translated call with no headers of its own sends one of them as it is.
   */
  readonly #jsonHeaders: Readonly<Record<string, string>>;
  readonly #streamHeaders: Readonly<Record<string, string>>;
  readonly #dispatcher: Dispatcher;
  readonly #timeouts: UpstreamTimeouts;
  readonly #dispatcherFor: ((connectMs: number) => Dispatcher) | undefined;
  /**
   * Keep-alive sockets for same-format pass-through (http-proxy speaks node:http, not undici).
   * Without an agent http-proxy sends `Connection: close` and opens a connection per request.
   */
  readonly relayAgent: HttpAgent;
  /** Parsed relay targets by upstream path: http-proxy would re-parse a string target per request. */
  readonly #relayTargets = new Map<string, Url>();
  /** Scrubs the configured secrets from upstream text (src/services/providers/scrub-secrets.ts). */
  readonly #scrub: (text: string) => string;
  /** Azure with `auth: entra`: the Entra ID tokens polygate fetches and refreshes. */
  readonly #entra: EntraTokenSource | undefined;
  /** `upstream.max_answer_bytes`: the most of one answer (a JSON body, one SSE event) held in memory, relays' usage taps included. */
  readonly maxAnswerBytes: number;
  /** The path the upstream serves a format path under, for a route's model (Azure's deployments; as is elsewhere). */
  readonly upstreamPath: (path: string, model: string) => string;

  /** `dispatcherFor` gives the pool for a route's own connect timeout (undici sets it per pool). */
  constructor(
    name: string,
    cfg: ProviderConfig,
    codec: ChatUpstreamCodec,
    dispatcher: Dispatcher,
    timeouts: UpstreamTimeouts,
    dispatcherFor?: (connectMs: number) => Dispatcher,
    maxConnections = 4096,
    secrets: readonly string[] = [],
    maxAnswerBytes = defaultMaxAnswerBytes,
  ) {
    this.maxAnswerBytes = maxAnswerBytes;
    this.name = name;
    this.type = cfg.type;
    this.wireFormat = codec.format;
    this.baseUrl = (cfg.base_url ?? '').replace(/\/+$/, '');
    this.#codec = codec;
    this.upstreamPath = upstreamPathOf(cfg);
    this.#headers = { ...(cfg.headers ?? {}), ...authHeaders(cfg) };
    this.#entra = cfg.type === 'azure-openai' && cfg.auth === 'entra' ? new EntraTokenSource(cfg) : undefined;
    this.#jsonHeaders = Object.freeze({ ...jsonContent, ...this.#headers });
    this.#streamHeaders = Object.freeze({ ...jsonContent, accept: 'text/event-stream', ...this.#headers });
    // What this provider is sent (its key, its extra headers) is scrubbed whatever the caller passed.
    this.#scrub = secretMatcher([...secrets, ...Object.values(this.#headers)]);
    this.#dispatcher = dispatcher;
    this.#timeouts = timeouts;
    this.#dispatcherFor = dispatcherFor;
    const pool = {
      keepAlive: true,
      maxSockets: maxConnections,
      scheduling: 'lifo' as const,
      timeout: RELAY_IDLE_SOCKET_MS,
    };
    this.relayAgent = this.baseUrl.startsWith('https:') ? new HttpsAgent(pool) : new HttpAgent(pool);
  }

  /**
   * The relay target for an upstream path, in the legacy `url.parse` shape http-proxy reads
   * (`path`, `host`, `port`: src/infra/upstream/relay-target.ts). A route that passes the client's model name through (a glob entry)
   * puts client-chosen names in Gemini paths, so the memory starts over past a bound.
   */
  relayTarget(path: string): Url {
    let target = this.#relayTargets.get(path);
    if (!target) {
      if (this.#relayTargets.size >= 1024) this.#relayTargets.clear();
      this.#relayTargets.set(path, (target = relayTargetOf(this.baseUrl + path)));
    }
    return target;
  }

  /** Ends the relay's idle sockets; sockets of relays in flight close when their response ends. */
  close(): void {
    this.relayAgent.destroy();
  }

  /** The pool for a route's connect timeout, for the pass-through path too. */
  dispatcherFor(connectMs: number | undefined): Dispatcher {
    return connectMs !== undefined && this.#dispatcherFor ? this.#dispatcherFor(connectMs) : this.#dispatcher;
  }

  /** Upstream text with every configured secret replaced by `[redacted]`, before a client may see it. */
  scrub(text: string): string {
    // A token fetched at run time is in no config: an upstream echoing it must not hand it on.
    const token = this.#entra?.current;
    return this.#scrub(token && token.length >= 8 ? scrubSecrets(text, [token]) : text);
  }

  /**
   * The upstream refused polygate's own credentials (401/403): the operator's fault, not the
   * client's, whose key polygate already accepted. A 502 naming the provider, never the upstream's text.
   */
  rejectedCredentials(status: number): GatewayError {
    return credentialsRejected(
      `provider '${this.name}' rejected polygate's credentials (HTTP ${status}); the operator must check providers.${this.name}${this.#entra ? "'s Entra ID credentials" : '.api_key'}`,
    );
  }

  /** The headers to present upstream with a current credential: the configured ones, and an Entra ID token. */
  async authorizedHeaders(): Promise<Record<string, string>> {
    if (!this.#entra) return this.#headers;
    const token = await this.#entra.token().catch((e: unknown) => {
      // The library's words say what failed (a refused secret, no credential found); scrubbed all the same.
      const why = this.scrub(e instanceof Error ? e.message : String(e)).slice(0, 300);
      throw credentialsRejected(`provider '${this.name}' could not get an Entra ID token (${why})`);
    });
    return { ...this.#headers, authorization: `Bearer ${token}` };
  }

  async complete(req: ChatRequest, model: string, opts: CallOptions): Promise<ChatResult> {
    // A copy only to clear the flag: a JSON call's request is not a stream already (the encoders do not write to it).
    const json = req.stream ? { ...req, stream: false } : req;
    const call = this.#callFor(json, model, opts);
    // Read whole through undici's dispatcher API (src/infra/upstream/upstream-answer.ts), not a Readable.
    const { text } = this.#checked(await upstreamAnswer(call instanceof Promise ? await call : call));
    let body: unknown;
    try {
      // A read that failed after the head (cut, idle timeout) is no JSON either, as `.json()` rejects.
      if (text === undefined) throw new Error('no body');
      body = JSON.parse(text);
    } catch {
      throw new GatewayError('upstream', `provider '${this.name}' answered with a body that is not JSON`);
    }
    try {
      return this.#codec.decodeResult(body);
    } catch (e) {
      // The upstream's answer did not decode: its failure (502), not an internal error of ours.
      if (e instanceof GatewayError) throw e;
      throw new GatewayError('upstream', `provider '${this.name}' answered with a body polygate could not read`);
    }
  }

  async openStream(req: ChatRequest, model: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>> {
    const call = await this.#callFor({ ...req, stream: true }, model, opts);
    const timeouts = opts.timeouts ?? this.#timeouts;
    const decoder = this.#codec.createStreamDecoder();
    // Read as it arrives through undici's dispatcher API (src/infra/upstream/upstream-answer.ts), not a
    // Readable; errors while reading (socket cut, idle timeout) become the stream's last event, in-stream.
    const opened = await upstreamStream(
      call,
      (control) =>
        new PushedSse(control, decoder, (e) => ({ type: 'error', error: connectionError(e, this.name, timeouts) }), {
          max: this.maxAnswerBytes,
          provider: this.name,
        }),
    );
    // An answer read whole is one with an error status.
    if ('reader' in opened) return opened.reader;
    throw this.#errorOf(opened);
  }

  #callFor(req: ChatRequest, model: string, opts: CallOptions): UpstreamCall | Promise<UpstreamCall> {
    const enc = this.#codec.encodeRequest(req, model, opts.warn);
    const span = opts.trace?.upstream(this.name, this.wireFormat, model);
    const accept = req.stream ? 'text/event-stream' : 'application/json';
    // The format's own headers (none for Chat Completions) and a span's traceparent make the call's
    // headers its own; without them they are the provider's, built once per Accept.
    const headers =
      span || !isEmpty(enc.headers) || this.#entra
        ? { accept, ...enc.headers }
        : req.stream
          ? this.#streamHeaders
          : this.#jsonHeaders;
    return this.#callOf(this.upstreamPath(enc.path, model), enc.body, headers, opts, span);
  }

  /**
   * POSTs a JSON body to a path under base_url with the provider's credentials: 2xx resolves,
   * any other status rejects with the format's own error decoded, a failed connection with a
   * GatewayError that names which timeout fired. Also used for the upstream's token counting.
   * `span` (traced requests) is the call's span: its traceparent goes upstream.
   */
  async post(
    path: string,
    body: unknown,
    headers: Record<string, string>,
    opts: Pick<CallOptions, 'signal' | 'timeouts'>,
    span?: UpstreamSpan,
  ): Promise<Dispatcher.ResponseData> {
    return this.#posted(await this.#callOf(path, body, headers, opts, span));
  }

  async #posted(call: UpstreamCall): Promise<Dispatcher.ResponseData> {
    const res = await upstreamRequest(call);
    if (res.statusCode === 401 || res.statusCode === 403) {
      await res.body.dump().catch(() => {});
      throw this.rejectedCredentials(res.statusCode);
    }
    if (res.statusCode >= 400)
      throw this.#codec.decodeError(
        res.statusCode,
        await errorBodyOf(res, (t) => this.scrub(t), this.maxAnswerBytes),
        res.headers as WireHeaders,
      );
    return res;
  }

  /** A whole answer's status judged as `post` judges a streamed one's: 2xx returns, anything else throws. */
  #checked(a: UpstreamAnswer): UpstreamAnswer {
    if (a.statusCode >= 400) throw this.#errorOf(a);
    return a;
  }

  /** The error of an answer with an error status: polygate's credentials refused, or the format's own error decoded. */
  #errorOf(a: UpstreamAnswer): GatewayError {
    if (a.statusCode === 401 || a.statusCode === 403) return this.rejectedCredentials(a.statusCode);
    return this.#codec.decodeError(a.statusCode, jsonOrText(this.scrub(a.text ?? '')), a.headers as WireHeaders);
  }

  /**
   * The upstream call of a JSON body to a path under base_url, with the provider's credentials:
   * at once with configured ones, once an Entra ID token is had with those. `headers` are the
   * call's own, or one of the provider's whole sets (#jsonHeaders, #streamHeaders) as they are.
   */
  #callOf(
    path: string,
    body: unknown,
    headers: Record<string, string>,
    opts: Pick<CallOptions, 'signal' | 'timeouts'>,
    span: UpstreamSpan | undefined,
  ): UpstreamCall | Promise<UpstreamCall> {
    // Serialized before the call: a body that cannot be serialized is polygate's fault, not an
    // upstream that "could not be reached" (which would be retried and trip the breaker).
    const payload = JSON.stringify(body);
    if (headers === this.#jsonHeaders || headers === this.#streamHeaders)
      return this.#call(path, payload, headers, opts, span);
    if (!this.#entra) return this.#call(path, payload, this.#withAuth(headers, this.#headers, span), opts, span);
    return this.authorizedHeaders().then(
      (auth) => this.#call(path, payload, this.#withAuth(headers, auth, span), opts, span),
      (e: unknown) => {
        span?.end(undefined, e as Error);
        throw e;
      },
    );
  }

  /** A call's headers: the JSON ones, the caller's, the credentials, the span's traceparent, in that order. */
  #withAuth(headers: Record<string, string>, auth: Record<string, string>, span: UpstreamSpan | undefined) {
    return { ...jsonContent, ...headers, ...auth, ...span?.headers };
  }

  #call(
    path: string,
    payload: string,
    headers: Record<string, string>,
    opts: Pick<CallOptions, 'signal' | 'timeouts'>,
    span: UpstreamSpan | undefined,
  ): UpstreamCall {
    return {
      provider: this.name,
      upstreamFormat: this.wireFormat,
      url: this.baseUrl + path,
      dispatcher: this.dispatcherFor(opts.timeouts?.connectMs),
      timeouts: opts.timeouts ?? this.#timeouts,
      signal: opts.signal,
      headers,
      body: payload,
      span,
      maxAnswerBytes: this.maxAnswerBytes,
    };
  }
}

/** What every call sends first (a caller's `accept` takes the second place's value). */
const jsonContent = { 'content-type': 'application/json', accept: 'application/json' } as const;

function isEmpty(o: Record<string, string>): boolean {
  for (const _ in o) return false;
  return true;
}
