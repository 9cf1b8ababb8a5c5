// Claude on Amazon Bedrock through InvokeModel / InvokeModelWithResponseStream (docs/providers.md,
// "Bedrock"): the Messages body Anthropic's own Bedrock SDK sends, SigV4-signed, the answer read
// with the Messages codec (JSON, or the event stream's chunks as Messages events).
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { anthropicUpstreamCodec } from '../../../../adapters/anthropic-messages/index.ts';
import type { ChatUpstreamCodec, WireHeaders } from '../../../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../../../infra/config/gateway-config.ts';
import type { RouteTimeouts } from '../../../infra/config/route-policy.ts';
import { connectionError } from '../../../infra/upstream/connection-error.ts';
import { readEventStream } from '../../../infra/upstream/read-event-stream.ts';
import type { EventBound } from '../../../infra/upstream/read-sse.ts';
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
import type { EnvelopeRelay, RelayedAnswer } from '../envelope-relay.ts';
import { secretMatcher } from '../scrub-secrets.ts';
import type { CountCall, TokenCounter } from '../token-counter.ts';
import { converseCountBody, inputTokensOf, invokeCountBody } from './bedrock-count.ts';
import { AwsSigner, awsCredentialsOf } from './aws-signer.ts';
import { encodeConverseRequest } from './converse-request.ts';
import { decodeConverseResult } from './converse-result.ts';
import { ConverseStreamDecoder } from './converse-stream.ts';
import {
  bedrockError,
  bedrockErrorStatus,
  errorTypeOf,
  invokeBody,
  invokePath,
  invokeStreamItem,
  relayBody,
  sseText,
} from './bedrock-invoke.ts';

export const bedrockEndpoint = (region: string): string => `https://bedrock-runtime.${region}.amazonaws.com`;

export class BedrockProvider implements ChatProvider, EnvelopeRelay, TokenCounter {
  readonly name: string;
  readonly type = 'bedrock';
  /** InvokeModel speaks Anthropic's Messages body; Converse is Bedrock's own (no format polygate's clients speak). */
  readonly wireFormat: 'anthropic-messages' | undefined;
  readonly #converse: boolean;
  readonly baseUrl: string;
  readonly #codec: ChatUpstreamCodec = anthropicUpstreamCodec;
  /** SigV4 with AWS credentials, or a Bedrock API key sent as a bearer token (no signature). */
  readonly #auth: { signer: AwsSigner } | { apiKey: string };
  readonly #dispatcherFor: (connectMs: number | undefined) => Dispatcher;
  readonly #timeouts: UpstreamTimeouts;
  /** Scrubs the configured secrets from upstream text (compiled once: src/services/providers/scrub-secrets.ts). */
  readonly #scrub: (text: string) => string;
  readonly maxAnswerBytes: number;
  /** `upstream.max_answer_bytes` as the stream readers take it: the most one event-stream frame may claim. */
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
    this.#converse = cfg.api === 'converse';
    this.wireFormat = this.#converse ? undefined : 'anthropic-messages';
    const region = cfg.region ?? 'us-east-1';
    this.baseUrl = (cfg.base_url ?? bedrockEndpoint(region)).replace(/\/+$/, '');
    this.#auth = cfg.api_key
      ? { apiKey: cfg.api_key }
      : { signer: new AwsSigner(awsCredentialsOf(cfg), region, 'bedrock') };
    this.#dispatcherFor = dispatcherFor;
    this.#timeouts = timeouts;
    this.#scrub = secretMatcher(secrets);
  }

  async complete(req: ChatRequest, model: string, opts: CallOptions): Promise<ChatResult> {
    if (this.#converse) {
      const payload = JSON.stringify(encodeConverseRequest(req, model, opts.warn));
      const res = await this.#post(`/model/${encodeURIComponent(model)}/converse`, payload, false, model, opts);
      const body = await boundedJson(res.body, this.name, this.maxAnswerBytes);
      return decodeConverseResult(body, model);
    }
    const res = await this.#send({ ...req, stream: false }, model, opts);
    const body = await boundedJson(res.body, this.name, this.maxAnswerBytes);
    try {
      return this.#codec.decodeResult(body);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw new GatewayError('upstream', `provider '${this.name}' answered with a body polygate could not read`);
    }
  }

  async openStream(req: ChatRequest, model: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>> {
    if (this.#converse) {
      const payload = JSON.stringify(encodeConverseRequest(req, model, opts.warn));
      const res = await this.#post(`/model/${encodeURIComponent(model)}/converse-stream`, payload, true, model, opts);
      return this.#converseEvents(res.body, model, opts.timeouts ?? this.#timeouts);
    }
    const res = await this.#send({ ...req, stream: true }, model, opts);
    return this.#events(res.body, opts.timeouts ?? this.#timeouts);
  }

  /**
   * Bedrock's own count (CountTokens) of the body this route would send: a Messages client's body
   * as it came (InvokeModel), else the request encoded for InvokeModel or Converse.
   */
  async countTokens(call: CountCall, opts: CallOptions): Promise<number> {
    const { request, raw, upstreamModel: model } = call;
    let body: Record<string, unknown>;
    if (this.#converse) body = converseCountBody(encodeConverseRequest(request, model, opts.warn));
    else if (raw?.format === 'anthropic-messages')
      body = invokeCountBody(relayBody(raw.body, raw.headers['anthropic-beta']));
    else body = invokeCountBody(invokeBody(this.#codec.encodeRequest({ ...request, stream: false }, model, opts.warn)));
    const res = await this.#post(
      `/model/${encodeURIComponent(model)}/count-tokens`,
      JSON.stringify(body),
      false,
      model,
      opts,
    );
    const answer = await boundedJson(res.body, this.name, this.maxAnswerBytes).catch(() => undefined);
    return inputTokensOf(answer, this.name);
  }

  /** InvokeModel takes the Messages body: a Messages client's is relayed (Converse is another format). */
  relaysFormat(format: string): boolean {
    return !this.#converse && format === 'anthropic-messages';
  }

  async relay(
    body: Record<string, unknown>,
    clientHeaders: IncomingHttpHeaders,
    model: string,
    stream: boolean,
    opts: Omit<CallOptions, 'warn'>,
  ): Promise<RelayedAnswer> {
    const payload = JSON.stringify(relayBody(body, clientHeaders['anthropic-beta']));
    const res = await this.#post(invokePath(model, stream), payload, stream, model, opts);
    const timeouts = opts.timeouts ?? this.#timeouts;
    if (!stream) return { contentType: 'application/json', body: this.#guarded(res.body, timeouts) };
    return { contentType: 'text/event-stream', body: this.#sse(res.body, timeouts) };
  }

  /** The event stream's chunks as the Anthropic SSE they carry; an in-stream exception rejects. */
  async *#sse(body: AsyncIterable<Uint8Array>, timeouts: Partial<RouteTimeouts>): AsyncIterable<string> {
    for await (const m of this.#guarded(readEventStream(body, this.#bound), timeouts)) {
      const item = invokeStreamItem(m);
      if (item.kind === 'skip') continue;
      if (item.kind === 'error') throw this.#error(bedrockErrorStatus(500, item.type), item.type, item.body);
      yield sseText(item.frame);
    }
  }

  async *#guarded<T>(items: AsyncIterable<T>, timeouts: Partial<RouteTimeouts>): AsyncIterable<T> {
    try {
      yield* items;
    } catch (e) {
      throw e instanceof GatewayError ? e : connectionError(e, this.name, timeouts);
    }
  }

  async *#events(body: AsyncIterable<Uint8Array>, timeouts: Partial<RouteTimeouts>): AsyncIterable<StreamEvent> {
    const decoder = this.#codec.createStreamDecoder();
    try {
      for await (const m of readEventStream(body, this.#bound)) {
        const item = invokeStreamItem(m);
        if (item.kind === 'skip') continue;
        if (item.kind === 'error') {
          yield { type: 'error', error: this.#error(bedrockErrorStatus(500, item.type), item.type, item.body) };
          return;
        }
        for (const ev of decoder.push(item.frame)) {
          yield ev;
          if (ev.type === 'error') return;
        }
      }
      yield* decoder.end();
    } catch (e) {
      yield { type: 'error', error: e instanceof GatewayError ? e : connectionError(e, this.name, timeouts) };
    }
  }

  async *#converseEvents(
    body: AsyncIterable<Uint8Array>,
    model: string,
    timeouts: Partial<RouteTimeouts>,
  ): AsyncIterable<StreamEvent> {
    const decoder = new ConverseStreamDecoder(model);
    try {
      for await (const m of readEventStream(body, this.#bound)) {
        const type = m.headers[':message-type'];
        const text = new TextDecoder().decode(m.body);
        if (type === 'exception' || type === 'error') {
          const t = m.headers[':exception-type'] ?? m.headers[':error-code'];
          yield { type: 'error', error: this.#error(bedrockErrorStatus(500, t), t, parseJson(text) ?? text) };
          return;
        }
        yield* decoder.push(m.headers[':event-type'] ?? '', parseJson(text));
      }
      yield* decoder.end();
    } catch (e) {
      yield { type: 'error', error: e instanceof GatewayError ? e : connectionError(e, this.name, timeouts) };
    }
  }

  async #send(req: ChatRequest, model: string, opts: CallOptions): Promise<Dispatcher.ResponseData> {
    const enc = this.#codec.encodeRequest(req, model, opts.warn);
    return this.#post(invokePath(model, req.stream), JSON.stringify(invokeBody(enc)), req.stream, model, opts);
  }

  /** A signed POST; 2xx resolves, any other status rejects with Bedrock's error mapped. */
  async #post(
    path: string,
    payload: string,
    stream: boolean,
    model: string,
    opts: Omit<CallOptions, 'warn'>,
  ): Promise<Dispatcher.ResponseData> {
    const url = new URL(this.baseUrl + path);
    const format = this.wireFormat ?? this.type;
    const span = opts.trace?.upstream(this.name, format, model);
    const headers = {
      'content-type': 'application/json',
      accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
      ...span?.headers,
    };
    const signed = await this.#authorized(url, headers, payload).catch((e: unknown) => {
      span?.end(undefined, e as Error);
      // The chain's own words say which sources it tried; a secret is never among them, but scrub anyway.
      const why = this.#scrub(e instanceof Error ? e.message : String(e));
      throw credentialsRejected(`provider '${this.name}' has no usable AWS credentials (${why})`);
    });
    const res = await upstreamRequest({
      provider: this.name,
      upstreamFormat: format,
      url: url.href,
      dispatcher: this.#dispatcherFor(opts.timeouts?.connectMs),
      timeouts: opts.timeouts ?? this.#timeouts,
      signal: opts.signal,
      headers: signed,
      body: payload,
      span,
    });
    if (res.statusCode < 400) return res;
    const type = errorTypeOf(res.headers as WireHeaders);
    const body = await errorBodyOf(res, this.#scrub, this.maxAnswerBytes);
    throw this.#error(res.statusCode, type, body);
  }

  /** The request's headers with its credential: a SigV4 signature over the final bytes, or the API key. */
  #authorized(url: URL, headers: Record<string, string>, payload: string): Promise<Record<string, string>> {
    if ('apiKey' in this.#auth) return Promise.resolve({ ...headers, authorization: `Bearer ${this.#auth.apiKey}` });
    return this.#auth.signer.sign(url, headers, payload);
  }

  /**
   * A refused signature, key, token or IAM permission (403 on Bedrock) is the operator's fault: a
   * 502 naming the provider, never AWS's text (which quotes the canonical request); anything else
   * in AWS's words.
   */
  #error(status: number, type: string | undefined, body: unknown): GatewayError {
    const effective = bedrockErrorStatus(status, type);
    if (effective === 401 || effective === 403)
      return credentialsRejected(
        `provider '${this.name}' rejected polygate's credentials (HTTP ${status}); the operator must check providers.${this.name}'s ${'apiKey' in this.#auth ? 'Bedrock API key' : 'AWS credentials'}`,
      );
    return bedrockError(status, type, body);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
