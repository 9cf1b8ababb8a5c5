// One request's spans (docs/usage-and-tracing.md): the server span of the request, with children
// for decode, each route attempt (the upstream call inside it), encode and the stream. Spans are
// parented explicitly; a request without a trace (tracing off) costs one property lookup per hook,
// and one the sampler left out makes no span at all (src/services/tracing/unsampled-trace.ts).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type AttributeValue,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type Koa from 'koa';
import type { ChatRequest } from '../../ir/chat-request.ts';
import type { GatewayError } from '../../ir/gateway-error.ts';
import type { ChatState } from '../runtime/request-state.ts';
import type { Route } from '../routing/model-router.ts';
import { contentAttributes, genAiProviderName, requestAttributes } from './gen-ai-attributes.ts';
import { formatTraceparent, parseTraceparent } from '../../infra/tracing/traceparent.ts';
import { boundTracestate } from '../../infra/tracing/trace-context.ts';
import type { Tracing } from '../../infra/tracing/tracer.ts';
import { UnsampledTrace } from './unsampled-trace.ts';
import type { UpstreamSpan, UpstreamTracer } from '../../infra/tracing/upstream-span.ts';
import type { GatewayContext } from '../runtime/gateway-context.ts';

/** performance.now() readings as epoch milliseconds, the SDK's time input. */
const epoch = (perf: number): number => performance.timeOrigin + perf;

export class RequestTrace implements UpstreamTracer {
  readonly #tracer: Tracer;
  readonly #root: Span;
  readonly #rootCtx: Context;
  readonly #tracestate: string | undefined;
  readonly #content: boolean;
  readonly #operation: string;
  #attemptCtx: Context | undefined;
  #warnings: string[] = [];
  #attrs: Attributes = {};

  constructor(
    tracer: Tracer,
    ctx: Koa.Context,
    state: ChatState,
    startedAt: number,
    remote: SpanContext | undefined,
    tracestate: string | undefined,
  ) {
    this.#tracer = tracer;
    this.#tracestate = tracestate;
    const parent = remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
    this.#operation = state.format ? state.format.operation(ctx.path) : 'chat';
    this.#content = state.runtime.config.log.content;
    this.#root = tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        startTime: epoch(startedAt),
        attributes: {
          'http.request.method': ctx.method,
          'gen_ai.operation.name': this.#operation,
          'polygate.request_id': state.requestId,
        },
      },
      parent,
    );
    this.#rootCtx = trace.setSpan(parent, this.#root);
  }

  /** A finished step of the request (decode, encode, the stream), from `startedAt` to now. */
  step(name: string, startedAt: number, attributes?: Attributes): void {
    this.#tracer.startSpan(name, { startTime: epoch(startedAt), attributes }, this.#rootCtx).end();
  }

  decoded(request: ChatRequest, startedAt: number): void {
    this.step('polygate.decode', startedAt);
    // Kept until the end: the root's attributes go to the SDK in one call, each checked once.
    this.#attrs = this.#content
      ? { ...requestAttributes(request), ...contentAttributes(request) }
      : requestAttributes(request);
  }

  /** Starts a route attempt (src/services/resilience/run-routes.ts); the returned function ends it. */
  attempt(route: Route, n: number): (error?: GatewayError) => void {
    const span = this.#tracer.startSpan(
      'polygate.route_attempt',
      {
        attributes: {
          'polygate.provider': route.provider,
          'gen_ai.response.model': route.model,
          'polygate.attempt': n,
        },
      },
      this.#rootCtx,
    );
    this.#attemptCtx = trace.setSpan(this.#rootCtx, span);
    return (error) => {
      if (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        span.setAttribute('error.type', error.kind);
      }
      span.end();
    };
  }

  /** The upstream call of the current attempt: a GenAI client span, named `{operation} {model}`. */
  upstream(provider: string, format: string, upstreamModel: string): UpstreamSpan {
    const parent = this.#attemptCtx ?? this.#rootCtx;
    const span = this.#tracer.startSpan(
      `${this.#operation} ${upstreamModel}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': this.#operation,
          'gen_ai.request.model': upstreamModel,
          'polygate.provider': provider,
          'polygate.format.out': format,
        },
      },
      parent,
    );
    const headers: Record<string, string> = { traceparent: formatTraceparent(span.spanContext()) };
    if (this.#tracestate) headers.tracestate = this.#tracestate;
    return {
      headers,
      end: (status, error) => {
        if (status !== undefined) span.setAttribute('http.response.status_code', status);
        if (error || (status ?? 0) >= 400)
          span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message ?? `HTTP ${status}` });
        span.end();
      },
    };
  }

  warnings(list: string[]): void {
    this.#warnings = list;
  }

  end(
    ctx: Koa.Context,
    state: ChatState,
    labels: Record<string, string>,
    status: number,
    ttfbMs: number | undefined,
  ): void {
    const route = String((ctx as { _matchedRoute?: unknown })._matchedRoute ?? '');
    if (route) this.#root.updateName(`${ctx.method} ${route}`);
    const provider = state.path?.provider;
    const type = provider ? state.runtime.config.providers[provider]?.type : undefined;
    const system = genAiProviderName(type);
    const a = this.#attrs;
    // Unset values are left out: the SDK would check each and refuse it.
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
    this.#root.setAttributes(a);
    if (status >= 500 || (state.outcome ?? labels.outcome).startsWith('stream_'))
      this.#root.setStatus({ code: SpanStatusCode.ERROR, message: state.outcome ?? labels.outcome });
    this.#root.end();
  }
}

/** A request's trace: spans when sampled, only the upstream's traceparent when not. */
export type Trace = RequestTrace | UnsampledTrace;

/**
 * Where the trace is kept: on the request's state under a key of this module's own (the state's
 * type does not know tracing), not in a WeakMap keyed by the state: an entry per request in a
 * WeakMap is work for every garbage collection that meets it.
 */
const traceKey = Symbol('polygate.trace');
type Traced = { [traceKey]?: Trace };

/**
 * Opens the request's trace when tracing is on (src/app/app.ts, at the start of every family request).
 * The sampling decision is made here, before the SDK is asked for anything: a caller's traceparent
 * is followed, a new trace is kept at sample_ratio (the SDK's sampler then keeps every span it is
 * asked for, src/infra/tracing/tracer.ts).
 */
export function startRequestTrace(ctx: GatewayContext, startedAt: number): void {
  const state = ctx.state;
  if (!state.format) return;
  const tracing = state.services.tracing;
  if (!tracing) return;
  const h = ctx.headers;
  // Bounded as W3C Trace Context says before a span or an upstream sees it (src/infra/tracing/trace-context.ts).
  const tracestate = h.tracestate === undefined ? undefined : boundTracestate(h.tracestate);
  const remote = typeof h.traceparent === 'string' ? parseTraceparent(h.traceparent, tracestate) : undefined;
  // A caller's sampled flag is followed while this second's allowance lasts; past it, the request
  // is sampled like a new one (issue #30, finding 12: every request of a caller forced a trace).
  const sampled =
    remote && (remote.traceFlags & 1) === 1 && follow(tracing)
      ? true
      : tracing.ratio >= 1 || Math.random() < tracing.ratio;
  (state as Traced)[traceKey] = sampled
    ? new RequestTrace(tracing.tracer, ctx, state, startedAt, remote, tracestate)
    : new UnsampledTrace(remote?.traceId, tracestate);
}

/** Followed sampled flags in the current second, per tracer (one per gateway). */
const followed = new WeakMap<Tracing, { second: number; count: number }>();

function follow(tracing: Tracing): boolean {
  const second = Math.floor(Date.now() / 1000);
  let w = followed.get(tracing);
  if (!w) followed.set(tracing, (w = { second, count: 0 }));
  if (w.second !== second) {
    w.second = second;
    w.count = 0;
  }
  return w.count++ < tracing.followedPerSecond;
}

export const traceOf = (state: object): Trace | undefined => (state as Traced)[traceKey];

/** Ends the request's span once its response has ended (src/app/app.ts, the close handler). */
export function endRequestTrace(
  ctx: GatewayContext,
  labels: Record<string, string>,
  status: number,
  ttfbMs: number | undefined,
): void {
  const state = ctx.state;
  const t = (state as Traced)[traceKey];
  if (!(t instanceof RequestTrace)) return;
  // A turn later, as the usage record: a relay reads its usage after the response's 'close'.
  setImmediate(() => t.end(ctx, state, labels, status, ttfbMs));
}

/** A finished step of the request, when it is traced. */
export function traceStep(state: object, name: string, startedAt: number, attributes?: Attributes): void {
  (state as Traced)[traceKey]?.step(name, startedAt, attributes);
}
