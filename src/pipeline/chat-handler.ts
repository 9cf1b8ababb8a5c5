import type { Context } from 'koa';
import type { ChatClientCodec, ClientStreamEncoder, InboundContext } from '../../adapters/shared/chat-adapter.ts';
import type { ChatSession } from './chat-session.ts';
import { StreamAccumulator } from './stream-accumulator.ts';
import { upstreamCodecOf, relayOf } from './upstream-codecs.ts';
import type { ApiKey } from '../auth/key-ring.ts';
import type { ChatRequest } from '../ir/chat-request.ts';
import type { Usage } from '../ir/chat-result.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import type { StreamEvent } from '../ir/stream-event.ts';
import { openStreams, tokensTotal, translationWarnings } from '../metrics/registry.ts';
import { HttpChatProvider } from '../providers/http-chat-provider.ts';
import type { Route } from '../routing/model-router.ts';
import type { Runtime } from '../runtime.ts';
import type { Family } from '../http/family.ts';
import { passThrough } from './pass-through.ts';
import { firstEvent, pipeStream } from './pipe-stream.ts';
import type { RequestState } from './request-state.ts';
import { runRoutes, type RouteAttempts, type ServeResult } from '../resilience/run-routes.ts';
import { reserveTokens, settleTokens } from '../limits/key-limits.ts';
import { traceOf, traceStep } from '../tracing/request-trace.ts';

/**
 * Serves one chat request in any client format: decode to the IR, try the model's routes in
 * order until one answers, encode the answer (or stream) back into the client's format.
 */
export type ChatHandlerOptions = {
  streamByRoute?: boolean;
  /** State a family keeps around requests (family D); one session per request. */
  session?: (ctx: Context) => ChatSession;
};

export function chatHandler(codec: ChatClientCodec, family: Family, opts: ChatHandlerOptions = {}) {
  return async (ctx: Context): Promise<void> => {
    const state = ctx.state as ChatState;
    const runtime = state.runtime;
    if (!ctx.is('application/json')) throw new GatewayError('invalid-request', 'content-type must be application/json', { status: 415, param: 'content-type' });
    const session = opts.session?.(ctx);
    let body: unknown = ctx.request.body;
    if (session?.prepareBody) {
      body = await session.prepareBody(body);
      (ctx.request as { body: unknown }).body = body;
    }
    const inbound: InboundContext = {
      headers: ctx.headers,
      params: (ctx as unknown as { params?: Record<string, string> }).params ?? {},
      query: ctx.query as Record<string, string | undefined>,
      streamByRoute: opts.streamByRoute,
    };
    const t0 = performance.now();
    const request = codec.decodeRequest(body, inbound);
    state.timings.decodeMs = performance.now() - t0;
    traceOf(state)?.decoded(request, t0);
    state.model = request.model;
    authorizeModel(runtime, state.key, request.model);
    await session?.prepareRequest?.(request);
    // The key's tpm: the prompt's estimate now, corrected by the upstream's usage when it comes.
    await reserveTokens(state, request);

    const routes = runtime.router.plan(request.model);
    if (routes.length === 0) throw noRoute(runtime, request.model);

    const abort = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) abort.abort();
    });

    // Retries, breakers and fallbacks (src/resilience/): a route is left only while nothing has
    // reached the client.
    state.attempts = { attempts: 0 };
    await runRoutes({
      family,
      model: request.model,
      routes,
      signal: abort.signal,
      report: state.attempts,
      trace: traceOf(state),
      serve: (route, final) => serveRoute(ctx, codec, family, request, route, abort.signal, !final, session),
      noRoute: () => noRoute(runtime, request.model),
    });
  };
}

function authorizeModel(runtime: Runtime, key: ApiKey, model: string): void {
  if (!runtime.router.has(model)) throw new GatewayError('not-found', `model '${model}' does not exist`, { param: 'model' });
  if (!key.allows(model)) throw new GatewayError('permission', `this API key may not use model '${model}'`, { param: 'model' });
}

function noRoute(runtime: Runtime, model: string): GatewayError {
  const why = [...runtime.disabled.entries()].map(([p, r]) => `${p}: ${r}`).join('; ');
  return new GatewayError('unavailable', `model '${model}' has no provider that can serve it now${why ? ` (${why})` : ''}`);
}

/** Serves the request through one route; not served when the route has no provider here (try the next). */
async function serveRoute(
  ctx: Context,
  codec: ChatClientCodec,
  family: Family,
  request: ChatRequest,
  route: Route,
  signal: AbortSignal,
  canFallBack: boolean,
  session: ChatSession | undefined,
): Promise<ServeResult> {
  const state = ctx.state as ChatState;
  const provider = state.runtime.chatProviders.get(route.provider);
  if (!provider) return { served: false };
  const upstreamFormat = provider.wireFormat ?? provider.type;
  state.path = { provider: route.provider, upstream_format: upstreamFormat, mode: 'translate', upstreamModel: route.model };
  const routeHeader = { 'x-polygate-route': `${route.provider}/${route.model}`, 'x-request-id': state.requestId };

  const warnings: string[] = [];
  const warn = (field: string, message: string): void => {
    warnings.push(`${field}: ${message}`);
    // Indices would make one label value per position: `messages.3.reasoning` counts as `messages.N.reasoning`.
    translationWarnings.inc({ inbound_format: codec.format, upstream_format: upstreamFormat, field: field.replace(/\.\d+(?=\.|$)|\[\d+\]/g, '.N') });
  };
  const headers: Record<string, string> = { ...routeHeader };
  const setWarnings = (): void => {
    // Header values must be one line of visible ASCII.
    if (warnings.length > 0) headers['x-polygate-warnings'] = warnings.join('; ').replace(/[^\x20-\x7e]/g, '?');
    traceOf(state)?.warnings(warnings);
  };

  const routed = session?.forRoute ? session.forRoute(request, route, warn) : request;

  if (provider instanceof HttpChatProvider && provider.wireFormat === codec.format && canRelay(request)) {
    state.path.mode = 'passthrough';
    ctx.respond = false;
    const target = relayOf(codec.format)(ctx.request.body as Record<string, unknown>, route.model, request.stream);
    const r = await passThrough({
      req: ctx.req,
      res: ctx.res,
      provider,
      codec: upstreamCodecOf(codec.format),
      path: target.path,
      body: target.body,
      responseHeaders: routeHeader,
      canFallBack,
      timeouts: route.timeouts,
      trace: traceOf(state)?.upstream(route.provider, codec.format, route.model),
      streamErrorFrames: (error) => {
        // A fresh encoder that has seen the stream start answers the error as mid-stream.
        const enc = codec.createStreamEncoder(request);
        enc.push({ type: 'start', id: 'relay', model: request.model });
        return enc.push({ type: 'error', error });
      },
    });
    if (r.kind === 'failed') {
      ctx.respond = true;
      throw r.error;
    }
    state.status = r.status;
    state.outcome = r.status >= 400 ? 'upstream_error' : r.outcome;
    if (r.usage) countTokens(state, r.usage);
    return { served: true, upstreamFailed: r.status >= 500 || r.outcome === 'upstream_cut' };
  }

  if (!routed.stream) {
    const result = await provider.complete(routed, route.model, { signal, warn, timeouts: route.timeouts, trace: traceOf(state) });
    countTokens(state, result.usage);
    const t1 = performance.now();
    // The client's encoder sees the client's request; `routed` is what the upstream saw.
    const body = codec.encodeResult(result, request);
    state.timings.encodeMs = performance.now() - t1;
    traceStep(state, 'polygate.encode', t1);
    await session?.completed?.({ request: routed, route, result, body });
    ctx.body = body;
    setWarnings();
    ctx.set(headers);
    state.outcome = 'ok';
    return { served: true, upstreamFailed: false };
  }

  const events = await provider.openStream(routed, route.model, { signal, warn, timeouts: route.timeouts, trace: traceOf(state) });
  const { first, rest } = await firstEvent(events);
  setWarnings();
  ctx.respond = false;
  openStreams.inc({ family });
  state.streaming = true;
  let upstreamFailed = false;
  const streamedAt = performance.now();
  try {
    const encoder = codec.createStreamEncoder(request);
    const accumulator = session?.streamEnded ? new StreamAccumulator() : undefined;
    const observed: ClientStreamEncoder = session?.observeFrames
      ? {
          push: (e) => {
            const frames = encoder.push(e);
            session.observeFrames?.(frames);
            return frames;
          },
        }
      : encoder;
    const r = await pipeStream(ctx.res, headers, observed, first, rest, (e: StreamEvent) => {
      accumulator?.push(e);
      if (e.type === 'finish') countTokens(state, e.usage);
    });
    if (accumulator) await session?.streamEnded?.({ request: routed, route, parts: accumulator.parts(), outcome: r.outcome });
    state.timings.encodeMs = r.encodeMs;
    traceStep(state, 'polygate.stream', streamedAt, { 'polygate.encode_ms': r.encodeMs, 'polygate.stream.outcome': r.outcome });
    state.status = 200;
    state.outcome = r.outcome === 'error' ? `stream_${r.error?.kind ?? 'error'}` : r.outcome;
    upstreamFailed = r.outcome === 'error';
  } finally {
    openStreams.dec({ family });
  }
  return { served: true, upstreamFailed };
}

/**
 * Pass-through needs nothing emulated. State kept by polygate (a Responses chain, item references,
 * storing the answer) is emulation: such requests are translated so polygate sees the result.
 */
const canRelay = (request: ChatRequest): boolean =>
  request.extensions['previous_response_id'] === undefined && request.extensions['item_references'] === undefined && request.extensions['store'] !== true;

/** The request state as the chat pipeline fills it: usage and upstream attempts go into the request's log line. */
export type ChatState = RequestState & { usage?: Usage; attempts?: RouteAttempts };

/** The model label is the client-facing name, which the config bounds (authorizeModel ran). */
function countTokens(state: ChatState, u: Usage): void {
  state.usage = u;
  settleTokens(state, u);
  const labels = { family: state.family ?? 'none', provider: state.path?.provider ?? 'none', model: state.model ?? 'none' };
  tokensTotal.inc({ ...labels, kind: 'input' }, u.inputTokens);
  tokensTotal.inc({ ...labels, kind: 'output' }, u.outputTokens);
  if (u.reasoningTokens) tokensTotal.inc({ ...labels, kind: 'reasoning' }, u.reasoningTokens);
  if (u.cacheReadTokens) tokensTotal.inc({ ...labels, kind: 'cache_read' }, u.cacheReadTokens);
  if (u.cacheWriteTokens) tokensTotal.inc({ ...labels, kind: 'cache_write' }, u.cacheWriteTokens);
}
