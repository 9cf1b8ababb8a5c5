// Koa's request handling (koa/lib/application.js, handleRequest) calls `onFinished(res, onerror)`
// for every request: the on-finished package then adds four listeners through ee-first (the
// response's 'end' and 'finish', the socket's 'error' and 'close'), a closure and a queue, and
// takes them off at the end: ~1.7 KB and ~1.3 % of a translated request's CPU (bench/RESULTS.md,
// "Session 11"). All that listener does here is call `ctx.onerror(err)` when the socket fails.
// After a socket error the socket is destroyed, so the context is not writable: Koa's onerror then
// only emits the app's 'error' event, and polygate's app has no 'error' listener and is silent
// (app.ts: the request log line says what happened), so the call does nothing at all.
import type Koa from 'koa';

type Handle = (ctx: Koa.Context, fnMiddleware: (ctx: Koa.Context) => Promise<void>) => Promise<void>;
type Events = { _events: Record<string, unknown> };
type OnFinishedRes = { __onFinished?: { queue: { push(listener: unknown): void } } };

/**
 * on-finished keeps a response's listeners in `res.__onFinished.queue` and attaches its own
 * listeners only when there is none: a queue that drops what is pushed, in place only while Koa's
 * handleRequest calls onFinished, takes Koa's listener and attaches nothing. It is taken off as
 * the middleware starts (before any of it runs), so every other onFinished call (a stream body's
 * own, koa's response.body setter) attaches as before.
 */
const dropping: OnFinishedRes['__onFinished'] = { queue: { push() {} } };

/**
 * Makes `app` skip Koa's per-request onFinished listener, while the app is silent and its only
 * 'error' listener is Koa's own (which `callback()` adds, and which does nothing for a silent app);
 * otherwise Koa's listener is not a no-op and stays.
 */
export function skipKoaFinished(app: Koa): void {
  const handle = (app as unknown as { handleRequest: Handle }).handleRequest;
  let composed: ((ctx: Koa.Context) => Promise<void>) | undefined;
  let started: ((ctx: Koa.Context) => Promise<void>) | undefined;
  (app as unknown as { handleRequest: Handle }).handleRequest = function (this: Koa, ctx, fnMiddleware) {
    // EventEmitter keeps a lone listener as itself (several: an array), so no list is built here.
    if (!this.silent || (this as unknown as Events)._events.error !== this.onerror)
      return handle.call(this, ctx, fnMiddleware);
    // Koa composes its middleware once per `callback()`; the wrapper is made once per composition.
    if (composed !== fnMiddleware) {
      composed = fnMiddleware;
      started = (c) => {
        (c.res as OnFinishedRes).__onFinished = undefined;
        return fnMiddleware(c);
      };
    }
    (ctx.res as OnFinishedRes).__onFinished = dropping;
    return handle.call(this, ctx, started!);
  };
}
