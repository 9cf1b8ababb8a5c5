// Koa's application with one step less per request. Koa's `handleRequest` calls
// `onFinished(res, ctx.onerror)` for every request: on-finished wraps the listener, hangs a queue
// on the response and listens (through ee-first, a closure per event) for 'end' and 'finish' on the
// response and 'error' and 'close' on its socket, ~2 % of a translated request's CPU and 1.4 KB of
// garbage (bench/RESULTS.md, "Session 10"). All it does is hand an error of the response's socket
// to `ctx.onerror`, which, with the headers sent or the socket gone (always the case then), only
// emits the app's 'error' event; polygate's app is `silent` and has no 'error' listener of its own,
// so that event printed nothing. Errors thrown by the middleware still go to `ctx.onerror`, as in
// Koa. `respond` below is Koa 3.3.0's own (MIT, koajs/koa lib/application.js), unchanged but for
// types: Koa does not export it. test/app/gateway-koa.test.ts answers a set of bodies, statuses and
// methods through both and compares the bytes, so a Koa release that changes its `respond` shows.
import { Readable, Stream, pipeline } from 'node:stream';
import type { ServerResponse } from 'node:http';
import Koa from 'koa';

/** Statuses whose responses carry no body (Koa's `statuses.empty`). */
const emptyStatuses = new Set([204, 205, 304]);

export class GatewayKoa extends Koa {
  // Koa's own method (not in its typings), called by `callback()` for every request.
  handleRequest(ctx: Koa.Context, fnMiddleware: (ctx: Koa.Context) => Promise<unknown>): Promise<void> {
    ctx.res.statusCode = 404;
    const onerror = (err: Error): void => ctx.onerror(err);
    return fnMiddleware(ctx)
      .then(() => respond(ctx))
      .catch(onerror);
  }
}

/** Koa's `isStream` (koa/lib/is-stream.js). */
function isStream(body: unknown): body is Readable {
  if (body instanceof Stream) return true;
  if (body === null || typeof body !== 'object') return false;
  const s = body as Record<string, unknown>;
  return (
    !!s.readable &&
    typeof s.pipe === 'function' &&
    typeof s.read === 'function' &&
    typeof s.readable === 'boolean' &&
    typeof s.readableObjectMode === 'boolean' &&
    typeof s.destroy === 'function' &&
    typeof s.destroyed === 'boolean'
  );
}

/**
 * Koa's `ctx.length = n` (its response's length setter and `set`) without the arrays its `set`
 * builds per call (~0.7 KB a response).
 */
function setLength(res: ServerResponse, n: number): void {
  if (res.headersSent || res.hasHeader('Transfer-Encoding')) return;
  res.setHeader('Content-Length', n);
}

/** Koa 3.3.0's `respond` (koa/lib/application.js), its `ctx.length = n` as `setLength`. */
function respond(ctx: Koa.Context): void {
  // allow bypassing koa
  if (ctx.respond === false) return;
  const res = ctx.res;
  if (!ctx.writable) {
    res.end();
    return;
  }
  const body: unknown = ctx.body;
  const code = ctx.status;
  // ignore body
  if (emptyStatuses.has(code)) {
    // strip headers
    ctx.body = null;
    res.end();
    return;
  }
  if (ctx.method === 'HEAD') {
    if (!res.headersSent && !res.hasHeader('Content-Length')) {
      const { length } = ctx.response;
      if (Number.isInteger(length)) setLength(res, length as number);
    }
    res.end();
    return;
  }
  // status body
  if (body === null || body === undefined) {
    if ((ctx.response as { _explicitNullBody?: boolean })._explicitNullBody) {
      ctx.response.remove('Content-Type');
      ctx.response.remove('Transfer-Encoding');
      setLength(res, 0);
      res.end();
      return;
    }
    const text = ctx.req.httpVersionMajor >= 2 ? String(code) : ctx.message || String(code);
    if (!res.headersSent) {
      ctx.type = 'text';
      setLength(res, Buffer.byteLength(text));
    }
    res.end(text);
    return;
  }
  // responses
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    res.end(body);
    return;
  }
  let stream: Readable | null = null;
  if (body instanceof Blob) stream = Readable.from(body.stream());
  else if (body instanceof ReadableStream) stream = Readable.from(body);
  else if (body instanceof Response) stream = Readable.from(body.body ?? '');
  else if (isStream(body)) stream = body;
  if (stream) {
    pipeline(stream, res, (err) => {
      if (err && ctx.app.listenerCount('error')) ctx.onerror(err);
    });
    return;
  }
  // body: json
  const json = JSON.stringify(body);
  if (!res.headersSent) setLength(res, Buffer.byteLength(json));
  res.end(json);
}
