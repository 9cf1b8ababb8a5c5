import { newRequestId } from '../infra/http/request-id.ts';
import type { ServerResponse } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import type { FormatModule } from '../infra/formats/formats.ts';
import { registerFormatRoutes } from './format-routes.ts';
import { routeHandlers } from './route-handlers.ts';
import { sameSecret } from '../services/auth/same-secret.ts';
import { encodeFormatError } from '../infra/http/encode-format-error.ts';
import { formatOfPath } from '../infra/http/format-of-path.ts';
import { closeUnfinished, receiveDeadline, type DeadlineAnswer } from '../infra/http/receive-deadline.ts';
import pkg from '../../package.json' with { type: 'json' };
import { GatewayError } from '../ir/gateway-error.ts';
import { inFlight, primeMetrics, registry } from '../infra/metrics/registry.ts';
import type { ChatState } from '../services/runtime/request-state.ts';
import { toGatewayError } from '../infra/errors/to-gateway-error.ts';
import type { Services } from '../services/runtime/services.ts';
import { speechStartupWarnings } from '../families/speech/speech-routes.ts';
import { commitUsage } from './record-usage.ts';
import { closeWith, endOfRequest, familyLabelsOf, watchEventStream } from './end-of-request.ts';
import { startRequestTrace } from '../services/tracing/request-trace.ts';
import { adminGate, registerUsageRoutes } from './admin-routes.ts';
import { queryOf, type GatewayMiddleware, type GatewayRouter } from '../services/runtime/gateway-context.ts';
import { noteRequest } from './request-log-entry.ts';
import { registerRequestRoutes } from './admin-request-routes.ts';
import { registerProviderRoutes } from './admin-providers-routes.ts';
import { registerConsoleRoutes } from './console/console-routes.ts';
import { registerKeyRoutes } from './admin-key-routes.ts';
import { registerTenantRoutes } from './tenant-view.ts';
import { accessLine } from '../infra/log/logger.ts';
import { matchBySegment } from './match-by-segment.ts';
import { dispatchRoutes, type Compose } from './route-dispatch.ts';

/**
 * The app of one gateway: every handler reaches `services` through ctx.state.services
 * (src/services/runtime/services.ts). `formats`: the wire formats served, the list of
 * src/infra/formats/formats.ts passed by src/main.ts; a test passes its own list to show that a
 * format is served from its module alone (test/structure/seventh-format.test.ts).
 */
export function createApp(services: Services, formats: readonly FormatModule[]): Koa {
  const { ref, log } = services;
  // Every series the config names exists from the start (and from each reload,
  // src/app/reload-config.ts), so the first scrape sees it at zero before any request moves it.
  primeMetrics(ref.current);
  services.commitUsage = (state, status) => commitUsage(state as ChatState, status);
  const app = new Koa();
  app.proxy = false;
  // Koa's own error printing would duplicate our request log line.
  app.silent = true;
  app.use(requestScope(services, formats));

  // Case-insensitive, one optional trailing slash: format detection (src/infra/http/format-of-path.ts,
  // routeComparable) reads paths through the same rule, so both always agree.
  const router: GatewayRouter = new Router({ sensitive: false, strict: false });
  // A request tests the routes of its path's first segment only (src/app/match-by-segment.ts).
  matchBySegment(router);
  // Claude Code sends `HEAD /` before its first call; a GET says what answers here.
  router.get('/', (ctx) => {
    ctx.body = { name: pkg.name, version: pkg.version, links: { health: '/healthz', metrics: '/metrics' } };
  });
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/metrics', async (ctx) => {
    const token = ref.current.config.metrics.bearer_token;
    if (token && !sameSecret(ctx.get('authorization'), `Bearer ${token}`)) {
      ctx.status = 401;
      ctx.body = 'unauthorized\n';
      return;
    }
    primeMetrics(ref.current);
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });

  // Every client route as the format modules describe it, each kind served by its family; a
  // format with stored conversations keeps them in a session (src/app/route-handlers.ts).
  registerFormatRoutes(router, formats, routeHandlers(formats, log));
  for (const w of speechStartupWarnings(ref.current)) log.warn(w);
  registerUsageRoutes(router);
  registerProviderRoutes(router);
  registerConsoleRoutes(router);
  registerKeyRoutes(router);
  registerRequestRoutes(router);
  registerTenantRoutes(router);

  app.use(adminGate);
  // The router's own dispatch, composed once per route (src/app/route-dispatch.ts).
  app.use(dispatchRoutes(router, (middleware) => (app as unknown as { compose: Compose }).compose(middleware)));
  app.use(router.allowedMethods());
  return app;
}

/** Paths of the operator's own tools: probed every few seconds, so they are logged at debug level and not counted. */
const opsPaths = new Set(['/', '/healthz', '/metrics']);

/**
 * Per request: an id, the runtime in force, errors in the format's own shape, one metrics sample
 * and one log line when the response is done (streams and unmatched paths included; `family`
 * is `none` where the path names no format).
 */
function requestScope(services: Services, formats: readonly FormatModule[]): GatewayMiddleware {
  const { ref, log } = services;
  // The access line's fields are fixed and carry no credential, so it skips the redaction walk
  // and pino's serializer (several per cent of a request's CPU); a line with the request body keeps both.
  const accessLog = accessLine(log);
  // `listen` is read once at start, like the listener itself (src/app/reload-config.ts).
  const bodyTimeoutMs = ref.current.config.listen.body_timeout_ms;
  // The 408 of a body that missed its deadline: one function for every request (no closure each).
  const bodyTimedOut = (state: ChatState): DeadlineAnswer => {
    state.status = 408;
    state.outcome = 'body_timeout';
    const err = new GatewayError(
      'timeout',
      `the request body did not arrive within ${bodyTimeoutMs} ms (listen.body_timeout_ms)`,
      { status: 408 },
    );
    return { ...encodeFormatError(state.format, err), extraHeaders: { 'x-request-id': state.requestId } };
  };
  return async (ctx, next) => {
    const started = performance.now();
    const format = formatOfPath(ctx.path, ctx.headers, queryOf(ctx), formats);
    const familyLabel = format?.metricLabel ?? 'none';
    const ops = !format && opsPaths.has(ctx.path);
    const state = ctx.state;
    // Header values echo no client bytes outside visible ASCII (no CR/LF reaches a response header).
    state.requestId =
      ctx
        .get('x-request-id')
        .slice(0, 128)
        .replace(/[^\x21-\x7e]/g, '') || newRequestId();
    state.format = format;
    state.runtime = ref.current;
    state.services = services;
    state.timings = {};
    startRequestTrace(ctx, started);
    const deadline = receiveDeadline(ctx.req, ctx.res, bodyTimeoutMs, bodyTimedOut, state);
    const stream = format ? watchEventStream(ctx.res) : undefined;
    if (format) noteRequest(ctx, state, started, stream);
    // Counted down as the response closes (RequestEnd.closed).
    if (!ops) inFlight.inc(familyLabelsOf(familyLabel));
    // Answered before the body arrived: the rest may not keep the socket (src/infra/http/receive-deadline.ts).
    ctx.res.on('finish', finished);
    // A config reload closes the old runtime's upstream pools (and a drain waits) only after this
    // request has ended: its response closed and its upstream call, which may outlive the client,
    // ended. The hold is taken here, with nothing that can throw between it and the listener that
    // lets it go. The log line, metrics and ledger record describe the request once its response
    // has closed AND its handler has settled (src/app/end-of-request.ts).
    const release = state.runtime.hold();
    const end = endOfRequest(ctx, state, {
      started,
      format,
      familyLabel,
      ops,
      stream,
      log,
      accessLog,
      release,
      deadline,
    });
    closeWith(ctx.res, end);
    try {
      await next();
      unmatched(ctx);
    } catch (e) {
      const err = toGatewayError(e);
      if (err.kind === 'internal' && !(e instanceof GatewayError))
        log.error({ request_id: state.requestId, err: e }, 'unhandled error');
      if (ctx.headerSent || !ctx.writable) return;
      ctx.respond = true;
      const enc = encodeFormatError(format, err);
      ctx.status = enc.status;
      ctx.body = enc.body;
      if (enc.headers) ctx.set(enc.headers);
      if (err.headers) ctx.set(err.headers);
      state.outcome = state.outcome ?? err.kind;
    } finally {
      // The id goes on every answer Koa sends, set last: a response that writes its own head
      // (streams, relays, the body deadline's 408) names it in that head, which Node then writes
      // in one step; one header set before any handler sent every such head through Node's
      // header-by-header path (~1.7 KB a stream, bench/RESULTS.md "Session 13"). Koa's `ctx.set`
      // builds three arrays per call.
      if (!ctx.headerSent && ctx.respond !== false) ctx.res.setHeader('x-request-id', state.requestId);
      // A body Koa sends after this: its record is in the store first (streams commit before
      // their final event, src/families/chat/).
      if (format && ctx.respond !== false && !ctx.headerSent) await commitUsage(state, state.status ?? ctx.status);
      end.settled();
    }
  };
}

/** A response's 'finish': one listener shared by every response (`once` wraps each in two new objects). */
function finished(this: ServerResponse): void {
  closeUnfinished(this.req);
}

/**
 * No route answered: 405 (with `allow`) for a known path and another method, else 404, both in
 * the family's shape (OpenAI's for paths of no family). @koa/router answers 501 to methods it
 * has no verb for (PROPFIND…); on a known path that is a 405 as well.
 */
function unmatched(ctx: Koa.Context): void {
  if (ctx.body !== undefined && ctx.body !== null) return;
  const allow = ctx.response.get('allow');
  if ((ctx.status === 405 || ctx.status === 501) && allow) {
    throw new GatewayError(
      'invalid-request',
      `method ${ctx.method} is not allowed on ${printable(ctx.path)}; allowed: ${allow}`,
      { status: 405 },
    );
  }
  if (ctx.status === 404)
    throw new GatewayError('not-found', `no route ${printable(ctx.method)} ${printable(ctx.path)}`);
}

/** Client text quoted in an error message: bounded and without control characters. */
const printable = (s: string): string => s.slice(0, 200).replace(/[^\x20-\x7e]/g, '?');
