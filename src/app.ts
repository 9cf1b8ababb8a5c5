import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { anthropicClientCodec } from '../adapters/anthropic-messages/index.ts';
import { openaiChatClientCodec } from '../adapters/openai-chat/index.ts';
import { authenticate } from './http/authenticate.ts';
import { jsonBody as json } from './http/json-body.ts';
import { encodeFamilyError } from './http/encode-family-error.ts';
import { familyOfPath, type Family } from './http/family.ts';
import { GatewayError } from './ir/gateway-error.ts';
import { inFlight, registry, requestDuration, requestsTotal } from './metrics/registry.ts';
import { chatHandler } from './pipeline/chat-handler.ts';
import type { RequestState } from './pipeline/request-state.ts';
import { toGatewayError } from './pipeline/to-gateway-error.ts';
import type { RuntimeRef } from './runtime.ts';
import { registerTuneRoutes } from './tune/tune-routes.ts';

const inboundFormat: Record<Family, string> = {
  messages: 'anthropic-messages',
  chat: 'openai-chat',
  responses: 'openai-responses',
  gemini: 'gemini',
  audio: 'openai-audio',
  tune: 'tune',
};

export function createApp(ref: RuntimeRef, log: Logger): Koa {
  const app = new Koa();
  app.proxy = false;
  // Koa's own error printing would duplicate our request log line.
  app.silent = true;
  app.use(requestScope(ref, log));

  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/metrics', async (ctx) => {
    const token = ref.current.config.metrics.bearer_token;
    if (token && ctx.get('authorization') !== `Bearer ${token}`) {
      ctx.status = 401;
      ctx.body = 'unauthorized\n';
      return;
    }
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });

  router.post('/v1/messages', authenticate('messages'), json, chatHandler(anthropicClientCodec, 'messages'));
  router.post('/v1/chat/completions', authenticate('chat'), json, chatHandler(openaiChatClientCodec, 'chat'));
  registerTuneRoutes(router, ref);

  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/**
 * Per request: an id, the runtime in force, errors in the family's own shape, one metrics sample
 * and one log line when the response is done (streams included).
 */
function requestScope(ref: RuntimeRef, log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const family = familyOfPath(ctx.path);
    const state = ctx.state as RequestState;
    state.requestId = ctx.get('x-request-id').slice(0, 128) || randomUUID();
    state.family = family;
    state.runtime = ref.current;
    state.timings = {};
    ctx.set('x-request-id', state.requestId);
    if (family) inFlight.inc({ family });
    ctx.res.once('close', () => {
      if (family) inFlight.dec({ family });
      if (!family) return;
      const status = state.status ?? ctx.status;
      const labels = {
        family,
        inbound_format: inboundFormat[family],
        upstream_format: state.path?.upstream_format ?? 'none',
        provider: state.path?.provider ?? 'none',
        mode: state.path?.mode ?? 'none',
        outcome: state.outcome ?? (status < 400 ? 'ok' : `http_${status}`),
      };
      const seconds = (performance.now() - started) / 1000;
      requestsTotal.inc(labels);
      requestDuration.observe(labels, seconds);
      log.info({
        request_id: state.requestId,
        method: ctx.method,
        route: ctx.path,
        key: state.key?.id,
        model: state.model,
        upstream_model: state.path?.upstreamModel,
        ...labels,
        status,
        duration_ms: Math.round(seconds * 1e4) / 10,
        decode_ms: state.timings.decodeMs,
        encode_ms: state.timings.encodeMs,
      });
    });
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && family) throw new GatewayError('not-found', `no route ${ctx.method} ${ctx.path}`);
    } catch (e) {
      const err = toGatewayError(e);
      if (err.kind === 'internal' && !(e instanceof GatewayError)) log.error({ request_id: state.requestId, err: e }, 'unhandled error');
      if (ctx.headerSent || !ctx.writable) return;
      ctx.respond = true;
      const enc = encodeFamilyError(family, err);
      ctx.status = enc.status;
      ctx.body = enc.body;
      if (enc.headers) ctx.set(enc.headers);
      state.outcome = state.outcome ?? err.kind;
    }
  };
}
