import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { parse as parseUrl, type Url } from 'node:url';
import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import type { ChatUpstreamCodec, WireHeaders } from '../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../config/gateway-config.ts';
import type { ChatRequest } from '../ir/chat-request.ts';
import type { ChatResult } from '../ir/chat-result.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import type { StreamEvent } from '../ir/stream-event.ts';
import { upstreamDuration } from '../metrics/registry.ts';
import { markCause } from '../resilience/failure-cause.ts';
import type { RouteTimeouts } from '../resilience/route-policy.ts';
import { readSse } from '../upstream/read-sse.ts';
import { scrubSecrets } from './scrub-secrets.ts';
import type { CallOptions, ChatProvider } from './chat-provider.ts';
import type { UpstreamSpan } from '../tracing/upstream-span.ts';
import { bearerAuth } from '../../adapters/shared/format-module.ts';
import { upstreamFormatOf } from '../formats.ts';

export type UpstreamTimeouts = { firstByteMs: number; idleMs: number };

/** How each provider type presents its key (its format's module, src/formats.ts); the client's credential is never forwarded. */
export function authHeaders(cfg: ProviderConfig): Record<string, string> {
  const key = cfg.api_key ?? '';
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
  /** Secrets scrubbed from upstream error text (src/providers/scrub-secrets.ts). */
  readonly #secrets: readonly string[];

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
  ) {
    this.name = name;
    this.type = cfg.type;
    this.wireFormat = codec.format;
    this.baseUrl = (cfg.base_url ?? '').replace(/\/+$/, '');
    this.#codec = codec;
    this.#headers = { ...(cfg.headers ?? {}), ...authHeaders(cfg) };
    // What this provider is sent (its key, its extra headers) is scrubbed whatever the caller passed.
    this.#secrets = [...new Set([...secrets, ...Object.values(this.#headers).filter((v) => v.length >= 8)])].sort((a, b) => b.length - a.length);
    this.#dispatcher = dispatcher;
    this.#timeouts = timeouts;
    this.#dispatcherFor = dispatcherFor;
    const pool = { keepAlive: true, maxSockets: maxConnections, scheduling: 'lifo' as const };
    this.relayAgent = this.baseUrl.startsWith('https:') ? new HttpsAgent(pool) : new HttpAgent(pool);
  }

  /**
   * The relay target for an upstream path, in the legacy `url.parse` shape http-proxy reads
   * (`path`, `host`, `port`). A route that passes the client's model name through (a glob entry)
   * puts client-chosen names in Gemini paths, so the memory starts over past a bound.
   */
  relayTarget(path: string): Url {
    let target = this.#relayTargets.get(path);
    if (!target) {
      if (this.#relayTargets.size >= 1024) this.#relayTargets.clear();
      this.#relayTargets.set(path, (target = parseUrl(this.baseUrl + path)));
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
    return scrubSecrets(text, this.#secrets);
  }

  /**
   * The upstream refused polygate's own credentials (401/403): the operator's fault, not the
   * client's, whose key polygate already accepted. A 502 naming the provider, never the upstream's text.
   */
  rejectedCredentials(status: number): GatewayError {
    return new GatewayError('upstream', `provider '${this.name}' rejected polygate's credentials (HTTP ${status}); the operator must check providers.${this.name}.api_key`);
  }

  /** Headers to present upstream (auth included), for the pass-through path. */
  get upstreamHeaders(): Record<string, string> {
    return this.#headers;
  }

  async complete(req: ChatRequest, model: string, opts: CallOptions): Promise<ChatResult> {
    const res = await this.#send({ ...req, stream: false }, model, opts);
    const body: unknown = await res.body.json().catch(() => {
      throw new GatewayError('upstream', `provider '${this.name}' answered with a body that is not JSON`);
    });
    try {
      return this.#codec.decodeResult(body);
    } catch (e) {
      // The upstream's answer did not decode: its failure (502), not an internal error of ours.
      if (e instanceof GatewayError) throw e;
      throw new GatewayError('upstream', `provider '${this.name}' answered with a body polygate could not read`);
    }
  }

  async openStream(req: ChatRequest, model: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>> {
    const res = await this.#send({ ...req, stream: true }, model, opts);
    return guardStream(readSse(res.body, this.#codec.createStreamDecoder()), this.name, opts.timeouts ?? this.#timeouts);
  }

  async #send(req: ChatRequest, model: string, opts: CallOptions): Promise<Dispatcher.ResponseData> {
    const enc = this.#codec.encodeRequest(req, model, opts.warn);
    const span = opts.trace?.upstream(this.name, this.wireFormat, model);
    return this.post(enc.path, enc.body, { accept: req.stream ? 'text/event-stream' : 'application/json', ...enc.headers }, opts, span);
  }

  /**
   * POSTs a JSON body to a path under base_url with the provider's credentials: 2xx resolves,
   * any other status rejects with the format's own error decoded, a failed connection with a
   * GatewayError that names which timeout fired. Also used for the upstream's token counting.
   * `span` (traced requests) is the call's span: its traceparent goes upstream.
   */
  async post(path: string, body: unknown, headers: Record<string, string>, opts: Pick<CallOptions, 'signal' | 'timeouts'>, span?: UpstreamSpan): Promise<Dispatcher.ResponseData> {
    // Serialized before the call: a body that cannot be serialized is polygate's fault, not an
    // upstream that "could not be reached" (which would be retried and trip the breaker).
    const payload = JSON.stringify(body);
    const started = performance.now();
    const timeouts = opts.timeouts ?? this.#timeouts;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.baseUrl + path, {
        method: 'POST',
        dispatcher: this.dispatcherFor(opts.timeouts?.connectMs),
        signal: opts.signal,
        headersTimeout: timeouts.firstByteMs,
        bodyTimeout: timeouts.idleMs,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers, ...this.#headers, ...span?.headers },
        body: payload,
      });
    } catch (e) {
      upstreamDuration.observe({ provider: this.name, upstream_format: this.wireFormat, outcome: 'error' }, (performance.now() - started) / 1000);
      span?.end(undefined, e as Error);
      throw connectionError(e, this.name, timeouts);
    }
    upstreamDuration.observe({ provider: this.name, upstream_format: this.wireFormat, outcome: String(res.statusCode) }, (performance.now() - started) / 1000);
    span?.end(res.statusCode);
    if (res.statusCode === 401 || res.statusCode === 403) {
      await res.body.dump().catch(() => {});
      throw this.rejectedCredentials(res.statusCode);
    }
    if (res.statusCode >= 400) {
      const text = this.scrub(await res.body.text().catch(() => ''));
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the codec gets the text as it came
      }
      throw this.#codec.decodeError(res.statusCode, parsed, res.headers as WireHeaders);
    }
    return res;
  }
}

/**
 * Classifies a failed upstream call without leaking URLs or credentials into the message. A
 * timeout says which one fired, so an operator knows which setting to look at.
 */
export function connectionError(e: unknown, provider: string, timeouts?: Partial<RouteTimeouts>): GatewayError {
  if (e instanceof GatewayError) return e;
  const within = (ms: number | undefined, setting: string): string => `${ms !== undefined ? ` within ${ms} ms` : ''} (${setting})`;
  if (e instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('timeout', `provider '${provider}' did not accept the connection${within(timeouts?.connectMs, 'connect timeout')}`);
  }
  if (e instanceof undiciErrors.HeadersTimeoutError) {
    return new GatewayError('timeout', `provider '${provider}' did not start answering${within(timeouts?.firstByteMs, 'first-byte timeout')}`);
  }
  if (e instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('timeout', `provider '${provider}' sent nothing more${within(timeouts?.idleMs, 'idle timeout')}`);
  }
  if (e instanceof Error && e.name === 'AbortError') return new GatewayError('internal', 'request aborted', { status: 499 });
  const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
  return markCause(new GatewayError('upstream', `provider '${provider}' could not be reached${code ? ` (${code})` : ''}`, { status: 502 }), 'connection');
}

/** Errors thrown while reading a stream (socket cut, idle timeout) become in-stream error events. */
async function* guardStream(events: AsyncIterable<StreamEvent>, provider: string, timeouts: Partial<RouteTimeouts>): AsyncIterable<StreamEvent> {
  try {
    yield* events;
  } catch (e) {
    yield { type: 'error', error: connectionError(e, provider, timeouts) };
  }
}
