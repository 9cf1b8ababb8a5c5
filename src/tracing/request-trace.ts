// One request's spans (docs/usage-and-tracing.md): the server span of the request, with children
// for decode, each route attempt (the upstream call inside it), encode and the stream. Spans are
// plain records (src/tracing/span-record.ts), parented by id and handed to the exporter as each
// ends; a request without a trace (tracing off) costs one property lookup per hook, and one the
// sampler left out makes no span at all (src/tracing/unsampled-trace.ts).
import { SpanKind, type AttributeValue, type Attributes } from '@opentelemetry/api';
import type Koa from 'koa';
import type { ChatRequest } from '../ir/chat-request.ts';
import type { GatewayError } from '../ir/gateway-error.ts';
import type { ChatState } from '../pipeline/chat-handler.ts';
import type { Route } from '../routing/model-router.ts';
import { contentAttributes, genAiOperation, genAiProviderName, requestAttributes } from './gen-ai-attributes.ts';
import type { OtlpExporter } from './otlp-exporter.ts';
import { SpanRecord } from './span-record.ts';
import { tracingOf } from './tracer.ts';
import { parseTraceparent } from './traceparent.ts';
import { randomHexId, UnsampledTrace } from './unsampled-trace.ts';
import type { UpstreamSpan, UpstreamTracer } from './upstream-span.ts';

/** performance.now() readings as epoch milliseconds, the span records' time. */
const epoch = (perf: number): number => performance.timeOrigin + perf;
const now = (): number => performance.timeOrigin + performance.now();

export class RequestTrace implements UpstreamTracer {
  readonly #exporter: OtlpExporter;
  readonly #root: SpanRecord;
  readonly #tracestate: string | undefined;
  readonly #content: boolean;
  readonly #operation: string;
  #attempt: SpanRecord | undefined;
  #warnings: string[] = [];

  constructor(exporter: OtlpExporter, ctx: Koa.Context, state: ChatState, startedAt: number, remote: { traceId: string; spanId: string } | undefined, tracestate: string | undefined) {
    this.#exporter = exporter;
    this.#tracestate = tracestate;
    this.#operation = state.family ? genAiOperation(state.family, ctx.path) : 'chat';
    this.#content = state.runtime.config.log.content;
    const attributes: Attributes = { 'http.request.method': ctx.method, 'gen_ai.operation.name': this.#operation, 'polygate.request_id': state.requestId };
    this.#root = new SpanRecord(remote?.traceId ?? randomHexId(16), randomHexId(8), remote?.spanId, ctx.method, SpanKind.SERVER, epoch(startedAt), attributes, tracestate, remote !== undefined);
  }

  #child(name: string, kind: SpanKind, parent: SpanRecord, start: number, attributes: Attributes): SpanRecord {
    return new SpanRecord(this.#root.traceId, randomHexId(8), parent.spanId, name, kind, start, attributes, this.#tracestate, false);
  }

  #end(span: SpanRecord): void {
    span.end = now();
    this.#exporter.add(span);
  }

  /** A finished step of the request (decode, encode, the stream), from `startedAt` to now. */
  step(name: string, startedAt: number, attributes?: Attributes): void {
    this.#end(this.#child(name, SpanKind.INTERNAL, this.#root, epoch(startedAt), attributes ?? {}));
  }

  decoded(request: ChatRequest, startedAt: number): void {
    this.step('polygate.decode', startedAt);
    const a = this.#root.attributes;
    Object.assign(a, requestAttributes(request));
    if (this.#content) Object.assign(a, contentAttributes(request));
  }

  /** Starts a route attempt (src/resilience/run-routes.ts); the returned function ends it. */
  attempt(route: Route, n: number): (error?: GatewayError) => void {
    const span = this.#child('polygate.route_attempt', SpanKind.INTERNAL, this.#root, now(), { 'polygate.provider': route.provider, 'gen_ai.response.model': route.model, 'polygate.attempt': n });
    this.#attempt = span;
    return (error) => {
      if (error) {
        span.fail(error.message);
        span.attributes['error.type'] = error.kind;
      }
      this.#end(span);
    };
  }

  /** The upstream call of the current attempt: a GenAI client span, named `{operation} {model}`. */
  upstream(provider: string, format: string, upstreamModel: string): UpstreamSpan {
    const span = this.#child(`${this.#operation} ${upstreamModel}`, SpanKind.CLIENT, this.#attempt ?? this.#root, now(), {
      'gen_ai.operation.name': this.#operation,
      'gen_ai.request.model': upstreamModel,
      'polygate.provider': provider,
      'polygate.format.out': format,
    });
    const headers: Record<string, string> = { traceparent: `00-${span.traceId}-${span.spanId}-01` };
    if (this.#tracestate) headers.tracestate = this.#tracestate;
    return {
      headers,
      end: (status, error) => {
        if (status !== undefined) span.attributes['http.response.status_code'] = status;
        if (error || (status ?? 0) >= 400) span.fail(error?.message ?? `HTTP ${status}`);
        this.#end(span);
      },
    };
  }

  warnings(list: string[]): void {
    this.#warnings = list;
  }

  end(ctx: Koa.Context, state: ChatState, labels: Record<string, string>, status: number, ttfbMs: number | undefined): void {
    const route = String((ctx as { _matchedRoute?: unknown })._matchedRoute ?? '');
    if (route) this.#root.name = `${ctx.method} ${route}`;
    const provider = state.path?.provider;
    const type = provider ? state.runtime.config.providers[provider]?.type : undefined;
    const system = genAiProviderName(type);
    const a = this.#root.attributes;
    // Unset values are left out, as the SDK left them out.
    const put = (k: string, v: AttributeValue | undefined): void => {
      if (v !== undefined) a[k] = v;
    };
    put('http.route', route || undefined);
    a['http.response.status_code'] = status;
    a['gen_ai.provider.name'] = system;
    a['gen_ai.system'] = system;
    put('gen_ai.request.model', state.model);
    put('gen_ai.response.model', state.path?.upstreamModel);
    put('gen_ai.usage.input_tokens', state.usage?.inputTokens);
    put('gen_ai.usage.output_tokens', state.usage?.outputTokens);
    a['polygate.family'] = labels.family;
    a['polygate.format.in'] = labels.inbound_format;
    a['polygate.format.out'] = labels.upstream_format;
    a['polygate.mode'] = labels.mode;
    a['polygate.provider'] = labels.provider;
    a['polygate.outcome'] = state.outcome ?? labels.outcome;
    put('polygate.key.id', state.key?.id);
    put('polygate.attempts', state.attempts?.attempts);
    put('polygate.time_to_first_byte_ms', ttfbMs);
    if (this.#warnings.length > 0) a['polygate.warnings'] = this.#warnings;
    if (status >= 500 || (state.outcome ?? labels.outcome).startsWith('stream_')) this.#root.fail(state.outcome ?? labels.outcome);
    this.#end(this.#root);
  }
}

/**
 * The request's trace, kept on its state object under a symbol only this module knows: a WeakMap
 * entry per request costs the garbage collector an ephemeron to trace, and every request of a
 * gateway with tracing on has one.
 */
const traceKey = Symbol('polygate.trace');
type Traced = { [traceKey]?: RequestTrace | UnsampledTrace };

/**
 * Opens the request's trace when tracing is on (src/app.ts, at the start of every family request).
 * The sampling decision is made here, once: a caller's traceparent is followed, a new trace is
 * kept at sample_ratio; a kept trace records every span of the request.
 */
export function startRequestTrace(ctx: Koa.Context, startedAt: number): void {
  const state = ctx.state as ChatState;
  if (!state.family) return;
  const tracing = tracingOf(state.runtime.config);
  if (!tracing) return;
  const h = ctx.headers;
  const tracestate = typeof h.tracestate === 'string' && h.tracestate !== '' ? h.tracestate : undefined;
  const remote = typeof h.traceparent === 'string' ? parseTraceparent(h.traceparent, tracestate) : undefined;
  const sampled = remote ? (remote.traceFlags & 1) === 1 : tracing.ratio >= 1 || Math.random() < tracing.ratio;
  (state as Traced)[traceKey] = sampled ? new RequestTrace(tracing.exporter, ctx, state, startedAt, remote, tracestate) : new UnsampledTrace(remote?.traceId, tracestate);
}

export const traceOf = (state: object): RequestTrace | UnsampledTrace | undefined => (state as Traced)[traceKey];

/** Ends the request's span once its response has ended (src/app.ts, the close handler). */
export function endRequestTrace(ctx: Koa.Context, labels: Record<string, string>, status: number, ttfbMs: number | undefined): void {
  const state = ctx.state as ChatState;
  const t = (state as Traced)[traceKey];
  if (!(t instanceof RequestTrace)) return;
  // A turn later, as the usage record: a relay reads its usage after the response's 'close'.
  setImmediate(() => t.end(ctx, state, labels, status, ttfbMs));
}

/** A finished step of the request, when it is traced. */
export function traceStep(state: object, name: string, startedAt: number, attributes?: Attributes): void {
  (state as Traced)[traceKey]?.step(name, startedAt, attributes);
}

