// Vertex AI (docs/providers.md, "Vertex AI"): Gemini models through `generateContent` /
// `streamGenerateContent` and Claude models through `rawPredict` / `streamRawPredict`, under
// `projects/{project}/locations/{region}/publishers/{google|anthropic}/models/{model}`, with an
// OAuth access token from Google's own auth library (a service-account key file or Application
// Default Credentials; the library caches the token and fetches a new one before it expires).
// The library is imported at the first token fetch, so gateways without Vertex never load it.
import type { IncomingHttpHeaders } from 'node:http';
import type { GoogleAuth, GoogleAuthOptions } from 'google-auth-library';
import type { Dispatcher } from 'undici';
import { anthropicUpstreamCodec } from '../../../../adapters/anthropic-messages/index.ts';
import { geminiUpstreamCodec } from '../../../../adapters/gemini/index.ts';
import type { ChatUpstreamCodec, WireHeaders } from '../../../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../../../infra/config/gateway-config.ts';
import type { RouteTimeouts } from '../../../infra/config/route-policy.ts';
import { connectionError } from '../../../infra/upstream/connection-error.ts';
import { readSse, type EventBound } from '../../../infra/upstream/read-sse.ts';
import {
  boundedJson,
  defaultMaxAnswerBytes,
  errorBodyOf,
  upstreamRequest,
} from '../../../infra/upstream/upstream-request.ts';
import type { ChatRequest } from '../../../ir/chat-request.ts';
import type { ChatResult } from '../../../ir/chat-result.ts';
import { credentialsRejected, GatewayError } from '../../../ir/gateway-error.ts';
import type { StreamEvent } from '../../../ir/stream-event.ts';
import type { CallOptions, ChatProvider } from '../chat-provider.ts';
import type { UpstreamTimeouts } from '../http-chat-provider.ts';
import { messagesEnvelope, type EnvelopeRelay, type RelayedAnswer } from '../envelope-relay.ts';
import { scrubSecrets, secretMatcher } from '../scrub-secrets.ts';

export const vertexAnthropicVersion = 'vertex-2023-10-16';
const scope = 'https://www.googleapis.com/auth/cloud-platform';

/** The global endpoint, or a region's. */
export const vertexEndpoint = (region: string): string =>
  region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;

/** Claude models are Anthropic's publisher on Vertex; every other model Google's. */
export const publisherOf = (model: string): 'anthropic' | 'google' => (/^claude/i.test(model) ? 'anthropic' : 'google');

/**
 * A Messages body in Vertex's envelope: the model is in the path, the version in the body, the betas
 * as `anthropic_beta`; `stream` stays (Anthropic's Vertex SDK sends it, and Vertex reads it).
 */
const claudeBody = (
  body: Record<string, unknown>,
  betas: string | readonly string[] | undefined,
): Record<string, unknown> => messagesEnvelope(body, betas, vertexAnthropicVersion, ['model']);

export class VertexProvider implements ChatProvider, EnvelopeRelay {
  readonly name: string;
  readonly type = 'vertex';
  /**
   * Two formats behind one provider (by model): no plain pass-through; a Messages client of a
   * Claude model is relayed in Vertex's envelope (`relay`), every other request translated.
   */
  readonly wireFormat = undefined;
  readonly baseUrl: string;
  readonly #models: string;
  readonly #authOptions: GoogleAuthOptions;
  #auth: Promise<GoogleAuth> | undefined;
  readonly #dispatcherFor: (connectMs: number | undefined) => Dispatcher;
  readonly #timeouts: UpstreamTimeouts;
  /** Scrubs the configured secrets from upstream text (compiled once: src/services/providers/scrub-secrets.ts). */
  readonly #scrub: (text: string) => string;
  readonly maxAnswerBytes: number;
  /** `upstream.max_answer_bytes` as the SSE reader takes it: the most one event may hold. */
  readonly #bound: EventBound;

  constructor(
    name: string,
    cfg: ProviderConfig,
    dispatcherFor: (connectMs: number | undefined) => Dispatcher,
    timeouts: UpstreamTimeouts,
    secrets: readonly string[],
    maxAnswerBytes = defaultMaxAnswerBytes,
  ) {
    this.name = name;
    this.maxAnswerBytes = maxAnswerBytes;
    this.#bound = { max: maxAnswerBytes, provider: name };
    const region = cfg.region ?? 'global';
    this.baseUrl = (cfg.base_url ?? vertexEndpoint(region)).replace(/\/+$/, '');
    this.#models = `/v1/projects/${encodeURIComponent(cfg.project ?? '')}/locations/${encodeURIComponent(region)}/publishers`;
    this.#authOptions = {
      scopes: [scope],
      ...(cfg.credentials_file ? { keyFile: cfg.credentials_file } : {}),
      // The token answer is bounded too (a key file names its token endpoint): gaxios refuses a
      // declared length past it, and node-fetch, its HTTP client on Node, stops reading past `size`.
      clientOptions: { transporterOptions: { maxContentLength: maxAnswerBytes, size: maxAnswerBytes } },
    };
    this.#dispatcherFor = dispatcherFor;
    this.#timeouts = timeouts;
    this.#scrub = secretMatcher(secrets);
  }

  async complete(req: ChatRequest, model: string, opts: CallOptions): Promise<ChatResult> {
    const { codec, res } = await this.#send({ ...req, stream: false }, model, opts);
    const body = await boundedJson(res.body, this.name, this.maxAnswerBytes);
    try {
      return codec.decodeResult(body);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw new GatewayError('upstream', `provider '${this.name}' answered with a body polygate could not read`);
    }
  }

  async openStream(req: ChatRequest, model: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>> {
    const { codec, res } = await this.#send({ ...req, stream: true }, model, opts);
    const timeouts = opts.timeouts ?? this.#timeouts;
    // The push reader itself (no generator around it, so pipe-stream takes each read's events at
    // once): errors while reading become the stream's last event, in-stream.
    return readSse(
      res.body,
      codec.createStreamDecoder(),
      (e) => ({ type: 'error', error: connectionError(e, this.name, timeouts) }),
      this.#bound,
    );
  }

  /** The request in the model's publisher format, under Vertex's path for it. */
  #encode(
    req: ChatRequest,
    model: string,
    opts: CallOptions,
  ): { codec: ChatUpstreamCodec; path: string; body: unknown } {
    if (publisherOf(model) === 'anthropic') {
      const enc = anthropicUpstreamCodec.encodeRequest(req, model, opts.warn);
      const body = claudeBody(enc.body as Record<string, unknown>, enc.headers['anthropic-beta']);
      return { codec: anthropicUpstreamCodec, path: this.#claudePath(model, req.stream), body };
    }
    const enc = geminiUpstreamCodec.encodeRequest(req, model, opts.warn);
    const path = enc.path.replace(/^\/v1beta\/models\//, `${this.#models}/google/models/`);
    return { codec: geminiUpstreamCodec, path, body: enc.body };
  }

  /** `…/publishers/anthropic/models/{model}:rawPredict`, or `:streamRawPredict`. */
  #claudePath(model: string, stream: boolean): string {
    return `${this.#models}/anthropic/models/${encodeURIComponent(model)}:${stream ? 'streamRawPredict' : 'rawPredict'}`;
  }

  /** Claude's rawPredict takes the Messages body: a Messages client's is relayed (Gemini models are another format). */
  relaysFormat(format: string, model: string): boolean {
    return format === 'anthropic-messages' && publisherOf(model) === 'anthropic';
  }

  async relay(
    body: Record<string, unknown>,
    clientHeaders: IncomingHttpHeaders,
    model: string,
    stream: boolean,
    opts: Omit<CallOptions, 'warn'>,
  ): Promise<RelayedAnswer> {
    const envelope = claudeBody(body, clientHeaders['anthropic-beta']);
    const sent = { codec: anthropicUpstreamCodec, path: this.#claudePath(model, stream), body: envelope };
    const res = await this.#post(sent, stream, model, opts);
    // Anthropic's own JSON and SSE: the bytes go to the client as they come.
    return {
      contentType: stream ? 'text/event-stream' : 'application/json',
      body: this.#guarded(res.body, opts.timeouts ?? this.#timeouts),
    };
  }

  async *#guarded(body: AsyncIterable<Uint8Array>, timeouts: Partial<RouteTimeouts>): AsyncIterable<Uint8Array> {
    try {
      yield* body;
    } catch (e) {
      throw connectionError(e, this.name, timeouts);
    }
  }

  async #send(
    req: ChatRequest,
    model: string,
    opts: CallOptions,
  ): Promise<{ codec: ChatUpstreamCodec; res: Dispatcher.ResponseData }> {
    const sent = this.#encode(req, model, opts);
    return { codec: sent.codec, res: await this.#post(sent, req.stream, model, opts) };
  }

  /** An authorized POST; 2xx resolves, any other status rejects with the error in the publisher's format. */
  async #post(
    { codec, path, body }: { codec: ChatUpstreamCodec; path: string; body: unknown },
    stream: boolean,
    model: string,
    opts: Omit<CallOptions, 'warn'>,
  ): Promise<Dispatcher.ResponseData> {
    const payload = JSON.stringify(body);
    const span = opts.trace?.upstream(this.name, this.type, model);
    this.#auth ??= import('google-auth-library').then(({ GoogleAuth }) => new GoogleAuth(this.#authOptions));
    const token = await this.#auth
      .then((auth) => auth.getAccessToken())
      .catch((e: unknown) => {
        span?.end(undefined, e as Error);
        // The library's words say what failed (a refused key, no credentials found); scrubbed all the same.
        const why = this.#scrub(e instanceof Error ? e.message : String(e)).slice(0, 300);
        throw credentialsRejected(`provider '${this.name}' could not get a Google access token (${why})`);
      });
    const res = await upstreamRequest({
      provider: this.name,
      upstreamFormat: this.type,
      url: this.baseUrl + path,
      dispatcher: this.#dispatcherFor(opts.timeouts?.connectMs),
      timeouts: opts.timeouts ?? this.#timeouts,
      signal: opts.signal,
      headers: {
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        authorization: `Bearer ${token ?? ''}`,
        ...span?.headers,
      },
      body: payload,
      span,
    });
    if (res.statusCode === 401 || res.statusCode === 403) {
      await res.body.dump().catch(() => {});
      throw credentialsRejected(
        `provider '${this.name}' rejected polygate's credentials (HTTP ${res.statusCode}); the operator must check providers.${this.name}'s Google credentials`,
      );
    }
    if (res.statusCode >= 400) {
      // The access token is fetched at run time, so no config secret covers it: an upstream that
      // echoes the Authorization header it got (a proxy's error page, say) must not hand it on.
      const err = await errorBodyOf(
        res,
        (t) => this.#scrub(token && token.length >= 8 ? scrubSecrets(t, [token]) : t),
        this.maxAnswerBytes,
      );
      throw codec.decodeError(res.statusCode, err, res.headers as WireHeaders);
    }
    return res;
  }
}
