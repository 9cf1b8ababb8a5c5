import type { Context } from 'koa';
import type {
  ChatClientCodec,
  ClientStreamEncoder,
  InboundContext,
  SseFrame,
} from '../../../adapters/shared/chat-adapter.ts';
import type { ChatSession } from '../../services/sessions/chat-session.ts';
import { StreamAccumulator } from './stream-accumulator.ts';
import { ClientLeft } from './client-left.ts';
import { neverAborted } from '../../infra/upstream/upstream-request.ts';
import { upstreamCodecOf } from '../../services/providers/upstream-codecs.ts';
import type { ApiKey } from '../../services/auth/key-ring.ts';
import type { BuiltinTool, ChatRequest } from '../../ir/chat-request.ts';
import type { RoutingFields } from '../../../adapters/shared/routing-fields.ts';
import { applyHostedToolPolicy } from './hosted-tool-policy.ts';
import { hostedLoopNeeded, hostedToolsMode, offerHostedTools } from './hosted-tool-offer.ts';
import { HostedToolLoop } from './hosted-tool-loop.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { checkModelName } from '../../ir/model-name.ts';
import { routeHeader } from '../../infra/http/header-value.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import { openStreams, tokensTotal } from '../../infra/metrics/registry.ts';
import { RouteWarnings } from './route-warnings.ts';
import { HttpChatProvider } from '../../services/providers/http-chat-provider.ts';
import type { Route } from '../../services/routing/model-router.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';
import type { ChatFormatModule } from '../../infra/formats/formats.ts';
import { passThrough, type PassThroughResult } from './pass-through.ts';
import { envelopePassThrough } from './envelope-pass-through.ts';
import type { ChatProvider } from '../../services/providers/chat-provider.ts';
import { isEnvelopeRelay, type EnvelopeRelay } from '../../services/providers/envelope-relay.ts';
import { firstEvent, pipeStream } from './pipe-stream.ts';
import type { ChatState } from '../../services/runtime/request-state.ts';
import { runRoutes, type ServeResult } from '../../services/resilience/run-routes.ts';
import { reserveTokens, settleTokens } from '../../services/access/key-limits.ts';
import { admitRoute, hasBudgets, providerRefusal, reserveBudget } from '../../services/access/budgets.ts';
import { expectedCost } from '../../services/access/expected-cost.ts';
import { traceOf, traceStep } from '../../services/tracing/request-trace.ts';
import { answerText, settleUsage, StreamMeter, type MeteredUsage } from '../../services/usage/usage-meter.ts';
import { estimateTextTokens, estimateTokens } from '../../services/tokens/estimate-tokens.ts';
import { routeParams } from '../../infra/http/route-params.ts';
import { isJsonRequest } from '../../infra/http/is-json-request.ts';
import { setHeaders } from '../../infra/http/set-headers.ts';
import { queryOf, type GatewayContext } from '../../services/runtime/gateway-context.ts';

/**
 * Serves one chat request in any client format: read what routing needs, try the model's routes
 * in order until one answers. A same-format route relays the body as it came; a translated route
 * decodes it to the IR (once, when the first such route is tried) and encodes the answer (or
 * stream) back into the client's format (docs/open-world.md).
 */
export type ChatHandlerOptions = {
  streamByRoute?: boolean;
  /** State a format keeps around requests (Responses chains); one session per request. */
  session?: (ctx: Context) => ChatSession;
  /**
   * The credential headers of every format the app serves (its format list): none is relayed
   * upstream, whichever format's route relays.
   */
  credentialHeaders: ReadonlySet<string>;
};

export function chatHandler(format: ChatFormatModule, opts: ChatHandlerOptions) {
  const codec = format.client;
  return async (ctx: GatewayContext): Promise<void> => {
    const state = ctx.state;
    const runtime = state.runtime;
    if (!isJsonRequest(ctx, jsonOnly))
      throw new GatewayError('invalid-request', 'content-type must be application/json', {
        status: 415,
        param: 'content-type',
      });
    const session = opts.session?.(ctx);
    let body: unknown = ctx.request.body;
    const inbound: InboundContext = {
      headers: ctx.headers,
      params: routeParams(ctx),
      // One shared empty object for a path without a query string (Koa parses and caches one per request).
      query: queryOf(ctx) as Record<string, string | undefined>,
      streamByRoute: opts.streamByRoute,
    };
    const fields = codec.peekRequest(body, inbound);
    state.model = fields.model;
    authorizeModel(runtime, state.key, fields.model);
    const routes = runtime.router.plan(fields.model);
    if (routes.length === 0) throw noRoute(runtime, fields.model);

    // The full decode (validation included) runs once, for the first route that translates; its
    // 400 is the client's, whichever route asked for it. Without a session's steps to await, it is
    // the request itself (no promise).
    let decoded: ChatRequest | Promise<ChatRequest> | undefined;
    const decode = (): ChatRequest | Promise<ChatRequest> =>
      (decoded ??=
        session?.prepareBody || session?.prepareRequest
          ? (async () => {
              const t0 = performance.now();
              if (session.prepareBody) {
                body = await session.prepareBody(body);
                (ctx.request as { body: unknown }).body = body;
              }
              const request = decodeNow(codec, body, inbound, state, t0);
              if (session.prepareRequest) await session.prepareRequest(request);
              return request;
            })()
          : decodeNow(codec, body, inbound, state, performance.now()));
    // A session that keeps every turn decodes first: it builds the relayed body from the decoded
    // chain, and keeps the relayed answer as a turn (src/services/sessions/chat-session.ts).
    const keeps = session?.keepsEveryTurn === true;
    /** The provider a route relays to, or undefined when the route translates. */
    const relayOf = (route: Route): RelayProvider | undefined =>
      (keeps ? session?.relayBody !== undefined : fields.relayable) && !hostedLoopNeeded(runtime.config, route, body)
        ? relayProvider(runtime, route, format)
        : undefined;
    // A first route that translates decodes now, so its errors come before any token is reserved.
    const decoding = relayOf(routes[0]) && !keeps ? undefined : decode();
    const first = decoding instanceof Promise ? await decoding : decoding;
    // The key's tpm: the prompt's estimate now, corrected by the upstream's usage when it comes.
    // A relayed body is not decoded: its size stands for the prompt.
    const bodyLength = (): number => Number(ctx.request.length) || JSON.stringify(body).length;
    // An in-process counter answers at once (no promise to await).
    const reserving = reserveTokens(state, first ?? (() => Math.ceil(bodyLength() / 4)));
    if (reserving) await reserving;
    // The key's and workspace's budgets: admitted with its expected cost reserved, settled by its
    // record; a provider's as a route through it is tried.
    let expected: { costNano: number; tokens: number } | undefined;
    const expect = (): { costNano: number; tokens: number } =>
      (expected ??= expectedCost(state, routes, first, body, bodyLength()));
    if (hasBudgets(state)) await reserveBudget(state, expect());

    // Built when first asked for: a JSON answer only reads `aborted` (src/families/chat/client-left.ts).
    const left = new ClientLeft(ctx.res);

    /** One route the request may use: relayed as it came, or translated. */
    const serveAdmitted = (route: Route, final: boolean): Promise<ServeResult> => {
      const relay = relayOf(route);
      if (relay) {
        const warnings = new RouteWarnings(state, format, format.name);
        const body = keeps ? session?.relayBody?.(route, warnings.warn) : (ctx.request.body as Record<string, unknown>);
        if (body) {
          throwIfClientLeft(left);
          return relayRoute(
            ctx,
            format,
            fields,
            relay,
            route,
            !final,
            { body, warnings, session: keeps ? session : undefined },
            opts.credentialHeaders,
            () => relayedPromptTokens(codec, body, inbound),
          );
        }
      }
      const request = decode();
      return request instanceof Promise
        ? request.then((r) => serveRoute(ctx, format, r, route, left, session))
        : serveRoute(ctx, format, request, route, left, session);
    };

    // Retries, breakers and fallbacks (src/services/resilience/): a route is left only while nothing has
    // reached the client.
    state.attempts = { attempts: 0 };
    const routed = runRoutes({
      family: format.metricLabel,
      model: fields.model,
      routes,
      breakers: state.services.breakers,
      signal: () => left.signal,
      report: state.attempts,
      trace: traceOf(state),
      serve: (route, final) => {
        if (!runtime.chatProviders.has(route.provider)) return notServed;
        // A provider over its budget: skipped like an unavailable one. A provider with no budget is
        // admitted at once (no promise to await): the route is served with no async step of its own.
        const admitted = admitRoute(state, route.provider, expect);
        if (admitted === true) return serveAdmitted(route, final);
        return Promise.resolve(admitted).then((ok) => (ok ? serveAdmitted(route, final) : notServed));
      },
      noRoute: () => providerRefusal(state) ?? noRoute(runtime, fields.model),
    });
    state.upstreamCall = routed.then(ignore, ignore);
    await routed;
  };
}

const ignore = (): void => {};

/** A route that answered (the loop only reads it): one object for every JSON answer. */
const answered: ServeResult = Object.freeze({ served: true, upstreamFailed: false });

/** A route with no provider here, or over its provider's budget: the next is tried. */
const notServed: Promise<ServeResult> = Promise.resolve({ served: false });

/** The client's body decoded to the IR, timed and traced. */
function decodeNow(
  codec: ChatClientCodec,
  body: unknown,
  inbound: InboundContext,
  state: ChatState,
  t0: number,
): ChatRequest {
  const request = codec.decodeRequest(body, inbound);
  state.timings.decodeMs = performance.now() - t0;
  traceOf(state)?.decoded(request, t0);
  return request;
}

/** What Koa's `ctx.type = 'json'` sets (mime-types' `contentType('json')`). */
const jsonContentType = 'application/json; charset=utf-8';
/** A body Koa serializes as JSON: an object that is not a buffer, a stream or a web body. */
const isJsonObject = (body: unknown): boolean =>
  Array.isArray(body) ||
  (typeof body === 'object' && body !== null && Object.getPrototypeOf(body) === Object.prototype);

const jsonOnly = ['application/json'];

/** A request whose client left before its upstream call was sent: no call is made, nothing billed. */
function throwIfClientLeft(left: ClientLeft): void {
  if (left.aborted) throw new GatewayError('internal', 'request aborted', { status: 499 });
}

/**
 * The signal of a JSON answer's upstream call once it is sent: never aborted. The upstream has
 * the prompt and bills it (and what it generates) whether or not the client stays, so the call
 * runs to its end, bounded by the route's timeouts, and is billed what the upstream reports
 * (docs/usage-and-tracing.md, "What is billed").
 */
const runsToItsEnd = neverAborted;

/** A provider a body can be relayed to: over HTTP as it came, or in a cloud's envelope. */
type RelayProvider = HttpChatProvider | (ChatProvider & EnvelopeRelay);

/**
 * The route's provider when it speaks the client's format: over HTTP (the body relayed as it
 * came), or in a cloud's envelope (a Messages body to Claude on Bedrock or Vertex).
 */
function relayProvider(runtime: Runtime, route: Route, format: ChatFormatModule): RelayProvider | undefined {
  const provider = runtime.chatProviders.get(route.provider);
  if (!format.upstream || !provider) return undefined;
  if (provider instanceof HttpChatProvider) return provider.wireFormat === format.name ? provider : undefined;
  return isEnvelopeRelay(provider) && provider.relaysFormat(format.name, route.model) ? provider : undefined;
}

/** Every route of a chat or count request passes here: the name is checked again (bounded, no control characters) whichever decoder read it. */
export function authorizeModel(runtime: Runtime, key: ApiKey, model: string): void {
  checkModelName(model);
  if (!runtime.router.has(model))
    throw new GatewayError('not-found', `model '${model}' does not exist`, { param: 'model' });
  if (!key.allows(model))
    throw new GatewayError('permission', `this API key may not use model '${model}'`, { param: 'model' });
}

export function noRoute(runtime: Runtime, model: string): GatewayError {
  const why = [...runtime.disabled.entries()].map(([p, r]) => `${p}: ${r}`).join('; ');
  return new GatewayError(
    'unavailable',
    `model '${model}' has no provider that can serve it now${why ? ` (${why})` : ''}`,
  );
}

/**
 * Serves the request through one route; not served when the route has no provider here (try the
 * next). A JSON answer is one step after the upstream call (no async function of its own: every
 * translated JSON request passes here); a stream is served by serveStream.
 */
function serveRoute(
  ctx: GatewayContext,
  format: ChatFormatModule,
  request: ChatRequest,
  route: Route,
  left: ClientLeft,
  session: ChatSession | undefined,
): Promise<ServeResult> {
  const state = ctx.state;
  const provider = state.runtime.chatProviders.get(route.provider);
  if (!provider) return notServed;
  const upstreamFormat = provider.wireFormat ?? provider.type;
  state.path = {
    provider: route.provider,
    upstream_format: upstreamFormat,
    mode: 'translate',
    upstreamModel: route.model,
  };
  const warnings = new RouteWarnings(state, format, upstreamFormat);
  const warn = warnings.warn;
  // A JSON answer's x-request-id is the request scope's (src/app/app.ts); a stream names it in its own head.
  const headers: Record<string, string> = { 'x-polygate-route': routeHeader(route.provider, route.model) };

  const hosted = provider.wireFormat ? upstreamCodecOf(provider.wireFormat).hostedTools : noHostedTools;
  // Web search and fetch the upstream cannot run: run by polygate where the route says so (#27).
  const mode = hostedToolsMode(state.runtime.config, route);
  const offer = mode === 'run' ? offerHostedTools(request, hosted, state.runtime.config) : undefined;
  const caller = offer ? new HostedToolLoop(provider, offer) : provider;
  // Other hosted tools (code execution, ...) keep the provider's unsupported_tools.
  const policy = mode === 'run' ? (state.runtime.config.providers[route.provider]?.unsupported_tools ?? 'drop') : mode;
  const supported = applyHostedToolPolicy(offer?.request ?? request, route.provider, hosted, policy, warn);
  const routed = session?.forRoute ? session.forRoute(supported, route, warn) : supported;

  throwIfClientLeft(left);
  if (routed.stream) return serveStream(ctx, format, request, routed, route, left, session, caller, warnings, headers);
  return caller
    .complete(routed, route.model, { signal: runsToItsEnd, warn, timeouts: route.timeouts, trace: traceOf(state) })
    .then((result) => {
      settleRequestUsage(
        state,
        settleUsage(
          { final: result.usage },
          () => estimateTextTokens(answerText(result.parts)),
          () => estimateTokens(routed),
        ),
      );
      const t1 = performance.now();
      // The client's encoder sees the client's request; `routed` is what the upstream saw.
      const body = format.client.encodeResult(result, request);
      state.timings.encodeMs = performance.now() - t1;
      traceStep(state, 'polygate.encode', t1);
      if (!session?.completed) return answerJson(ctx, body, warnings, headers, left);
      return session
        .completed({ request: routed, route, result, body })
        .then(() => answerJson(ctx, body, warnings, headers, left));
    });
}

/** A JSON answer's body and headers onto the response. */
function answerJson(
  ctx: GatewayContext,
  body: unknown,
  warnings: RouteWarnings,
  headers: Record<string, string>,
  left: ClientLeft,
): ServeResult {
  // The type Koa gives a JSON body, set first (where Koa sets it) so Koa does not look it up per answer.
  if (isJsonObject(body) && !ctx.res.headersSent) ctx.res.setHeader('content-type', jsonContentType);
  ctx.body = body;
  warnings.addTo(headers);
  setHeaders(ctx.res, headers);
  ctx.state.outcome = left.aborted ? 'client_closed' : 'ok';
  return answered;
}

/** A stream through one route, from the upstream's first event to its end. */
async function serveStream(
  ctx: GatewayContext,
  format: ChatFormatModule,
  request: ChatRequest,
  routed: ChatRequest,
  route: Route,
  left: ClientLeft,
  session: ChatSession | undefined,
  caller: Pick<ChatProvider, 'openStream'>,
  warnings: RouteWarnings,
  headers: Record<string, string>,
): Promise<ServeResult> {
  const state = ctx.state;
  const codec = format.client;
  const warn = warnings.warn;
  const events = await caller.openStream(routed, route.model, {
    signal: left.signal,
    warn,
    timeouts: route.timeouts,
    trace: traceOf(state),
  });
  const { first, rest } = await firstEvent(events);
  warnings.addTo(headers);
  headers['x-request-id'] = state.requestId;
  ctx.respond = false;
  openStreams.inc({ family: format.metricLabel });
  state.streaming = true;
  let upstreamFailed: boolean;
  const streamedAt = performance.now();
  try {
    const encoder = codec.createStreamEncoder(request);
    const accumulator = session?.streamEnded ? new StreamAccumulator() : undefined;
    // What the upstream reported and streamed, billed however the stream ends (a client that
    // leaves early included).
    const meter = new StreamMeter();
    const observed: ClientStreamEncoder = session?.observeFrames
      ? {
          push: (e) => {
            const frames = encoder.push(e);
            session.observeFrames?.(frames);
            return frames;
          },
        }
      : encoder;
    const commit = state.services.commitUsage;
    // Billed once: at the finish (before the record is committed), or after a stream that ended
    // without one (the client left, the upstream cut it) from what the meter saw.
    let counted = false;
    const bill = (): void => {
      if (counted) return;
      counted = true;
      settleRequestUsage(
        state,
        meter.settle(() => estimateTokens(routed)),
      );
    };
    const r = await pipeStream(
      ctx.res,
      headers,
      observed,
      first,
      rest,
      (e: StreamEvent) => {
        accumulator?.push(e);
        meter.observe(e);
        if (e.type === 'finish') bill();
      },
      // The record is in the store before the client has the final event (docs/usage-and-tracing.md).
      commit && (() => commit(state, 200)),
    );
    bill();
    if (accumulator)
      await session?.streamEnded?.({ request: routed, route, parts: accumulator.parts(), outcome: r.outcome });
    state.timings.encodeMs = r.encodeMs;
    traceStep(state, 'polygate.stream', streamedAt, {
      'polygate.encode_ms': r.encodeMs,
      'polygate.stream.outcome': r.outcome,
    });
    state.status = 200;
    state.outcome = r.outcome === 'error' ? `stream_${r.error?.kind ?? 'error'}` : r.outcome;
    upstreamFailed = r.outcome === 'error' && !r.local;
  } finally {
    openStreams.dec({ family: format.metricLabel });
  }
  return { served: true, upstreamFailed };
}

/** Built-in providers (echo) run no hosted tools. */
const noHostedTools: ReadonlySet<BuiltinTool['kind']> = new Set();

/**
 * Same-format pass-through: the body as the client sent it (or as a session that keeps every turn
 * rebuilt it), the model renamed, headers other than credentials and hop-by-hop ones
 * (`anthropic-beta`, `openai-beta` included) relayed as they came.
 */
async function relayRoute(
  ctx: GatewayContext,
  format: ChatFormatModule,
  fields: RoutingFields,
  provider: RelayProvider,
  route: Route,
  canFallBack: boolean,
  relayed: { body: Record<string, unknown>; warnings: RouteWarnings; session?: ChatSession },
  credentialHeaders: ReadonlySet<string>,
  promptTokens: () => number,
): Promise<ServeResult> {
  const state = ctx.state;
  const upstream = format.upstream;
  if (!upstream) return { served: false };
  const { session } = relayed;
  state.path = {
    provider: route.provider,
    upstream_format: format.name,
    mode: 'passthrough',
    upstreamModel: route.model,
  };
  const responseHeaders: Record<string, string> = {
    'x-polygate-route': routeHeader(route.provider, route.model),
    'x-request-id': state.requestId,
  };
  relayed.warnings.addTo(responseHeaders);
  ctx.respond = false;
  const commit = state.services.commitUsage;
  let counted = false;
  const streamErrorFrames = (error: GatewayError): SseFrame[] => {
    // A fresh encoder that has seen the stream start answers the error as mid-stream. It needs
    // a request only for the names it echoes: the undecoded body gives the model.
    const enc = format.client.createStreamEncoder(bareRequest(fields));
    enc.push({ type: 'start', id: 'relay', model: fields.model });
    return enc.push({ type: 'error', error });
  };
  // The record is in the store before the client has the answer's last bytes.
  const beforeLast =
    commit &&
    ((status: number, meter: StreamMeter | undefined) => {
      if (meter) {
        counted = true;
        settleRequestUsage(state, meter.settle(promptTokens));
      }
      state.status = status;
      state.outcome = status >= 400 ? 'upstream_error' : 'ok';
      return commit(state, status);
    });
  const observeFrames = session?.observeFrames?.bind(session);
  let r: PassThroughResult;
  if (provider instanceof HttpChatProvider) {
    const target = upstream.relay(
      relayed.body,
      route.model,
      fields.stream,
      queryOf(ctx) as Record<string, string | undefined>,
    );
    r = await passThrough({
      proxy: state.services.proxy,
      req: ctx.req,
      res: ctx.res,
      provider,
      codec: upstream.codec,
      path: provider.upstreamPath(target.path, route.model),
      body: target.body,
      responseHeaders,
      canFallBack,
      credentialHeaders,
      timeouts: route.timeouts,
      trace: traceOf(state)?.upstream(route.provider, format.name, route.model),
      streamErrorFrames,
      observeFrames,
      clientStream: target.clientStream,
      observeJson: session?.observeJson?.bind(session),
      beforeLast,
    });
  } else
    r = await envelopePassThrough({
      res: ctx.res,
      provider,
      body: relayed.body,
      clientHeaders: ctx.req.headers,
      model: route.model,
      stream: fields.stream,
      codec: upstream.codec,
      responseHeaders,
      timeouts: route.timeouts,
      trace: traceOf(state),
      streamErrorFrames,
      observeFrames,
      beforeLast,
    });
  if (r.kind === 'failed') {
    ctx.respond = true;
    throw r.error;
  }
  await session?.relayEnded?.({ route, status: r.status, outcome: r.outcome });
  state.status = r.status;
  state.outcome = r.status >= 400 ? 'upstream_error' : r.outcome;
  if (r.meter && !counted) settleRequestUsage(state, r.meter.settle(promptTokens));
  return { served: true, upstreamFailed: r.status >= 500 || r.outcome === 'upstream_cut' };
}

const bareRequest = (f: RoutingFields): ChatRequest => ({
  model: f.model,
  system: [],
  messages: [],
  tools: [],
  sampling: {},
  stream: f.stream,
  extensions: {},
});

/**
 * A relayed request's prompt, estimated only when the upstream reported none: the body decoded by
 * the client codec, or a quarter of its JSON's length when it does not decode.
 */
function relayedPromptTokens(codec: ChatClientCodec, body: Record<string, unknown>, inbound: InboundContext): number {
  try {
    return estimateTokens(codec.decodeRequest(body, inbound));
  } catch {
    return Math.ceil(JSON.stringify(body).length / 4);
  }
}

/**
 * Settles a request's usage once it is known (src/services/usage/usage-meter.ts): the request's
 * counts for its log line and ledger record, the key's token reservation corrected
 * (src/services/access/key-limits.ts, settleTokens), the token metrics. An upstream's report that
 * could not be used is logged. The model label is the `models:` entry the name hit (a glob for names it
 * matched), which the config bounds.
 */
function settleRequestUsage(state: ChatState, metered: MeteredUsage): void {
  const u = metered.usage;
  state.usage = u;
  state.usageSource = metered.source;
  settleTokens(state, u);
  // One labels object, its kind changed between counts: the metric copies labels only for a new cell.
  const labels = {
    family: state.format?.metricLabel ?? 'none',
    provider: state.path?.provider ?? 'none',
    model: state.runtime.router.resolve(state.model ?? '')?.entry ?? 'none',
    kind: 'input',
  };
  if (metered.warning)
    state.services.log.warn(
      { request_id: state.requestId, provider: labels.provider, model: labels.model },
      metered.warning,
    );
  tokensTotal.inc(labels, u.inputTokens);
  labels.kind = 'output';
  tokensTotal.inc(labels, u.outputTokens);
  countMore(labels, 'reasoning', u.reasoningTokens);
  countMore(labels, 'cache_read', u.cacheReadTokens);
  countMore(labels, 'cache_write', u.cacheWriteTokens);
}

/** Tokens of a kind the upstream may leave out: counted when there are some. */
function countMore(labels: { kind: string } & Record<string, string>, kind: string, n: number | undefined): void {
  if (!n) return;
  labels.kind = kind;
  tokensTotal.inc(labels, n);
}
