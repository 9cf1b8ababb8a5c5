import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import { isObject, type Json } from '../../../adapters/shared/narrow.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { routeHeader } from '../../infra/http/header-value.ts';
import { warningsHeader } from '../../infra/metrics/warning-fields.ts';
import { authorizeModel, noRoute } from '../chat/chat-handler.ts';
import type { ChatSession } from '../../services/sessions/chat-session.ts';
import { upstreamSideOf } from '../../services/providers/upstream-codecs.ts';
import { HttpChatProvider } from '../../services/providers/http-chat-provider.ts';
import type { ChatProvider } from '../../services/providers/chat-provider.ts';
import { isEnvelopeRelay } from '../../services/providers/envelope-relay.ts';
import { isTokenCounter, type TokenCounter } from '../../services/providers/token-counter.ts';
import { estimateTokens } from '../../services/tokens/estimate-tokens.ts';
import type { Route } from '../../services/routing/model-router.ts';
import type { ChatFormatModule } from '../../infra/formats/formats.ts';
import { decodeCountRequest, type CountingFormat } from './decode-count-request.ts';
import { routeParams } from '../../infra/http/route-params.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';
import { boundedJson } from '../../infra/upstream/upstream-request.ts';

/** Upstream answers that say the input itself is wrong: the client gets them, not an estimate. */
const clientFaults = new Set([400, 413, 422]);

/**
 * Token counting for every chat format (docs/discovery.md): exact from the model's first usable
 * route when its upstream counts (Anthropic count_tokens, Gemini countTokens, Responses
 * input_tokens, Bedrock CountTokens), else polygate's own estimate. `x-polygate-token-count` says which; an upstream
 * that fails to count is reported in `x-polygate-warnings` and estimated for.
 */
export function countTokensHandler(format: ChatFormatModule, session?: (ctx: GatewayContext) => ChatSession) {
  const { countClient } = format;
  if (!countClient) throw new Error(`format '${format.name}' has a count-tokens route but no countClient`);
  const client: CountingFormat = { ...format, countClient };
  return async (ctx: GatewayContext): Promise<void> => {
    const state = ctx.state;
    const runtime = state.runtime;
    if (!ctx.is('application/json'))
      throw new GatewayError('invalid-request', 'content-type must be application/json', {
        status: 415,
        param: 'content-type',
      });
    const s = session?.(ctx);
    let raw: unknown = ctx.request.body;
    if (s?.prepareBody) raw = await s.prepareBody(raw);
    const inbound: InboundContext = {
      headers: ctx.headers,
      params: routeParams(ctx),
      query: ctx.query as Record<string, string | undefined>,
    };
    const t0 = performance.now();
    const request = decodeCountRequest(client, raw, inbound);
    state.timings.decodeMs = performance.now() - t0;
    state.model = request.model;
    authorizeModel(runtime, state.key, request.model);
    await s?.prepareRequest?.(request);
    const route = runtime.router.plan(request.model).find((r) => runtime.chatProviders.has(r.provider));
    if (!route) throw noRoute(runtime, request.model);

    const warnings: string[] = [];
    const warn = (field: string, message: string): void => void warnings.push(`${field}: ${message}`);
    // State polygate keeps (a stored conversation) is in the request, not the body: the format says.
    const relayable = countClient.relayable?.(request) ?? true;
    const routed = s?.forRoute ? s.forRoute(request, route, warn) : request;
    const exact = await countUpstream(ctx, client, routed, route, relayable && isObject(raw) ? raw : undefined, warn);
    ctx.set('x-polygate-token-count', exact === undefined ? 'estimate' : 'exact');
    if (warnings.length > 0) ctx.set('x-polygate-warnings', warningsHeader(warnings) ?? '');
    ctx.body = countClient.encode(exact ?? estimate(request));
    state.outcome = 'ok';
  };
}

/** polygate's estimate (gpt-tokenizer, src/services/sessions/truncate-conversation.ts), tool definitions included. */
function estimate(request: ChatRequest): number {
  if (request.tools.length === 0) return estimateTokens(request);
  return estimateTokens({
    ...request,
    system: [...request.system, { type: 'text', text: JSON.stringify(request.tools) }],
  });
}

/** The upstream's own count through the route, or undefined when it cannot count (then: estimate). */
/** `raw`: the client's body when it may be relayed as it came. */
async function countUpstream(
  ctx: GatewayContext,
  client: CountingFormat,
  request: ChatRequest,
  route: Route,
  raw: Json | undefined,
  warn: (field: string, message: string) => void,
): Promise<number | undefined> {
  const state = ctx.state;
  const provider = state.runtime.chatProviders.get(route.provider);
  if (provider && isTokenCounter(provider)) return countByProvider(ctx, client, provider, request, route, raw, warn);
  const upstream = provider instanceof HttpChatProvider ? upstreamSideOf(provider.wireFormat) : undefined;
  const wire = upstream?.countWire;
  if (!(provider instanceof HttpChatProvider) || !upstream || !wire) return undefined;
  const relay = provider.wireFormat === client.name ? raw : undefined;
  state.path = {
    provider: route.provider,
    upstream_format: provider.wireFormat,
    mode: relay ? 'passthrough' : 'translate',
    upstreamModel: route.model,
  };
  const headers: Record<string, string> = {};
  let target: { path: string; body: unknown };
  if (relay) {
    target = wire.relay(relay, route.model);
    for (const h of wire.relayHeaders) {
      const v = ctx.get(h);
      if (v) headers[h] = v;
    }
  } else {
    const generate = upstream.codec.encodeRequest(request, route.model, warn);
    target = wire.translate(generate, route.model);
    Object.assign(headers, generate.headers);
  }
  const abort = abortOnClose(ctx);
  let answer: unknown;
  try {
    const res = await provider.post(target.path, target.body, headers, {
      signal: abort.signal,
      timeouts: route.timeouts,
    });
    // Bounded (upstream.max_answer_bytes): past it, the count fails as the upstream's.
    answer = await boundedJson(res.body, route.provider, provider.maxAnswerBytes);
  } catch (e) {
    return couldNotCount(e, route, warn);
  }
  const n = wire.read(answer);
  if (n === undefined) warn('count', `provider '${route.provider}' answered without a token count; estimated`);
  else ctx.set('x-polygate-route', routeHeader(route.provider, route.model));
  return n;
}

/** The client's aborted call stops the upstream's. */
function abortOnClose(ctx: GatewayContext): AbortController {
  const abort = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  return abort;
}

/** A refusal of the input itself reaches the client; any other failure is a warning and an estimate. */
function couldNotCount(e: unknown, route: Route, warn: (field: string, message: string) => void): undefined {
  if (e instanceof GatewayError && clientFaults.has(e.status)) throw e;
  warn(
    'count',
    `provider '${route.provider}' could not count (${e instanceof GatewayError ? e.message : 'its answer is not JSON'}); estimated`,
  );
  return undefined;
}

/** A provider with a count API of its own (Bedrock's CountTokens). */
async function countByProvider(
  ctx: GatewayContext,
  client: CountingFormat,
  provider: ChatProvider & TokenCounter,
  request: ChatRequest,
  route: Route,
  raw: Json | undefined,
  warn: (field: string, message: string) => void,
): Promise<number | undefined> {
  const state = ctx.state;
  const relayed = raw !== undefined && isEnvelopeRelay(provider) && provider.relaysFormat(client.name, route.model);
  state.path = {
    provider: route.provider,
    upstream_format: provider.wireFormat ?? provider.type,
    mode: relayed ? 'passthrough' : 'translate',
    upstreamModel: route.model,
  };
  try {
    const n = await provider.countTokens(
      {
        request,
        upstreamModel: route.model,
        ...(relayed ? { raw: { format: client.name, body: raw, headers: ctx.headers } } : {}),
      },
      { signal: abortOnClose(ctx).signal, warn, ...(route.timeouts ? { timeouts: route.timeouts } : {}) },
    );
    ctx.set('x-polygate-route', routeHeader(route.provider, route.model));
    return n;
  } catch (e) {
    return couldNotCount(e, route, warn);
  }
}
