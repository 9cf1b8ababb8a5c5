// Translated chat calls' answers read through undici's dispatcher API with a handler of ours (issue
// #28), where `request()` builds a node Readable per call and `.json()` or the SSE reader's 'data'
// events read it through its stream state, `nextTick`s and microtasks: a JSON answer's chunks are
// kept and decoded once at its end, a stream's go straight to its reader. The call itself is
// upstreamRequest's: the same pools, timeouts, metric, span and error classes.
import { addAbortListener } from 'node:events';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { connectionError } from './connection-error.ts';
import {
  answerTooLarge,
  boundedText,
  defaultMaxAnswerBytes,
  neverAborted,
  observeUpstream,
  targetOf,
  upstreamRequest,
  type Target,
  type UpstreamCall,
  textOf,
} from './upstream-request.ts';

export type UpstreamAnswer = {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
  /**
   * The body as UTF-8 text, a leading BOM dropped (as undici's `.text()` and `.json()` read it);
   * undefined when the read failed after the headers (the socket cut, the idle timeout, the call
   * aborted), where `.text()` and `.json()` reject.
   */
  text: string | undefined;
};

/**
 * POSTs one request upstream and reads its answer whole, whatever its status. Rejects, when no
 * answer came, as upstreamRequest does (a GatewayError naming the timeout that fired, or marked as
 * a connection failure). The body is bounded by `upstream.max_answer_bytes` (`c.maxAnswerBytes`):
 * an answer (status < 400) past it ends the call and rejects with a 502 naming the setting; an
 * error body past it is kept to its first bytes (it is only read for its message) and the call ended.
 */
export function upstreamAnswer(c: UpstreamCall): Promise<UpstreamAnswer> {
  const target = typeof c.body === 'string' ? targetOf(c.url) : undefined;
  // A URL undici should judge itself (or a streamed body): its own request(), read as it reads.
  if (!target) return viaRequest(c);
  // Without `open` the handler resolves only with a whole answer.
  return new Promise((resolve, reject) =>
    dispatch(
      c,
      target,
      new AnswerRead<never>(c, resolve as (a: UpstreamAnswer | Streamed<never>) => void, reject, undefined),
    ),
  );
}

/** A body taken as it arrives (a stream's), chunk by chunk, then its end or the failure that cut it. */
export type BodyReader = {
  data(chunk: Buffer): void;
  end(): void;
  fail(e: unknown): void;
};

/** What a reader may do to its call: hold the upstream (backpressure), let it go on, or end it. */
export type CallControl = { pause(): void; resume(): void; destroy(): void };

export type Streamed<R extends BodyReader> = {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
  reader: R;
};

/**
 * POSTs one request upstream whose answer is read as it arrives: once the head says it is an
 * answer (status < 400) `open` builds the reader its body goes to, and this resolves with it; an
 * error status is read whole (its decoder takes the whole body), as upstreamAnswer reads it.
 * The signal aborts the call until its body ends; the reader's `destroy` ends it sooner.
 */
export function upstreamStream<R extends BodyReader>(
  c: UpstreamCall,
  open: (control: CallControl) => R,
): Promise<Streamed<R> | UpstreamAnswer> {
  const target = typeof c.body === 'string' ? targetOf(c.url) : undefined;
  if (!target) return viaRequest(c, open);
  return new Promise((resolve, reject) => dispatch(c, target, new AnswerRead(c, resolve, reject, open)));
}

function dispatch<R extends BodyReader>(c: UpstreamCall, target: Target, handler: AnswerRead<R>): void {
  // undici hands a dispatch's own errors to the handler; anything thrown all the same is the call's failure.
  try {
    c.dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headersTimeout: c.timeouts.firstByteMs,
        bodyTimeout: c.timeouts.idleMs,
        headers: c.headers,
        body: c.body,
      },
      handler,
    );
  } catch (e) {
    handler.fail(e as Error);
  }
}

/** undici's own request() and Readable body, read as the dispatch handler reads (whole, or by `open`'s reader). */
async function viaRequest(c: UpstreamCall): Promise<UpstreamAnswer>;
async function viaRequest<R extends BodyReader>(
  c: UpstreamCall,
  open: (control: CallControl) => R,
): Promise<Streamed<R> | UpstreamAnswer>;
async function viaRequest<R extends BodyReader>(
  c: UpstreamCall,
  open?: (control: CallControl) => R,
): Promise<Streamed<R> | UpstreamAnswer> {
  const res = await upstreamRequest(c);
  if (!open || res.statusCode >= 400) {
    const max = c.maxAnswerBytes ?? defaultMaxAnswerBytes;
    const read = await boundedText(res.body, max);
    if (read.over && res.statusCode < 400) throw answerTooLarge(c.provider, max);
    return { statusCode: res.statusCode, headers: res.headers, text: read.failed ? undefined : read.text };
  }
  const body = res.body;
  const reader = open(body);
  body.on('data', (chunk: Buffer) => reader.data(chunk));
  body.on('end', () => reader.end());
  body.on('error', (e) => reader.fail(e));
  body.on('close', () => reader.fail(new Error('upstream stream closed before its end')));
  return { statusCode: res.statusCode, headers: res.headers, reader };
}

/**
 * One call's handler (undici's DispatchHandler, `onRequestStart` … `onResponseEnd`/`onResponseError`):
 * the body kept whole, or, with `open` and an answer (status < 400), handed to the reader it builds.
 */
class AnswerRead<R extends BodyReader> implements Dispatcher.DispatchHandler, CallControl {
  readonly #call: UpstreamCall;
  readonly #started = performance.now();
  readonly #resolve: (a: UpstreamAnswer | Streamed<R>) => void;
  readonly #reject: (e: unknown) => void;
  readonly #open: ((control: CallControl) => R) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the call was aborted before undici started it: it is aborted as it starts. */
  #reason: Error | undefined;
  #stopListening: Disposable | undefined;
  #statusCode = 0;
  #headers: Dispatcher.ResponseData['headers'] = noHeaders;
  #reader: R | undefined;
  #chunks: Buffer[] = [];
  #length = 0;
  /** `upstream.max_answer_bytes`: the most of a body read whole that is kept. */
  readonly #max: number;
  #done = false;

  constructor(
    c: UpstreamCall,
    resolve: (a: UpstreamAnswer | Streamed<R>) => void,
    reject: (e: unknown) => void,
    open: ((control: CallControl) => R) | undefined,
  ) {
    this.#call = c;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#open = open;
    this.#max = c.maxAnswerBytes ?? defaultMaxAnswerBytes;
    const signal = c.signal;
    // A call that runs to its end is given no listener (upstreamRequest's `neverAborted`).
    if (!signal || signal === neverAborted) return;
    if (signal.aborted) this.#reason = reasonOf(signal);
    else this.#stopListening = addAbortListener(signal, () => this.#abort(reasonOf(signal)));
  }

  /** The client left (or a deadline passed): undici aborts the request, and destroys its socket once sent. */
  #abort(reason: Error): void {
    if (this.#controller) this.#controller.abort(reason);
    else this.#reason = reason;
  }

  pause(): void {
    this.#controller?.pause();
  }

  resume(): void {
    this.#controller?.resume();
  }

  /** The reader stops early (its consumer left): the call ends and its socket is destroyed, as undici's body does. */
  destroy(): void {
    if (!this.#done) this.#abort(new undiciErrors.RequestAbortedError());
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#reason) return controller.abort(this.#reason);
    this.#controller = controller;
  }

  onResponseStart(
    _c: Dispatcher.DispatchController,
    statusCode: number,
    headers: Dispatcher.ResponseData['headers'],
  ): void {
    // 1xx (103 Early Hints) come before the answer's own head.
    if (statusCode < 200) return;
    this.#statusCode = statusCode;
    this.#headers = headers;
    // The duration to the answer's head, as upstreamRequest measures it.
    observeUpstream(this.#call, String(statusCode), this.#started);
    this.#call.span?.end(statusCode);
    if (this.#open && statusCode < 400) {
      const reader = (this.#reader = this.#open(this));
      this.#resolve({ statusCode, headers, reader });
    }
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#reader) return this.#reader.data(chunk);
    // One add and one compare per chunk; past the bound, nothing more is kept (#tooLarge).
    if ((this.#length += chunk.length) > this.#max) return this.#tooLarge(chunk);
    // Most answers come in one chunk: a list of one, not an empty list grown by a push.
    if (this.#chunks.length === 0) this.#chunks = [chunk];
    else this.#chunks.push(chunk);
  }

  /**
   * The body passed `upstream.max_answer_bytes`: the call ends (undici destroys its socket). An
   * answer fails as the upstream's fault (502, as one that is not JSON); an error body keeps its
   * first bytes, which is all its message needs.
   */
  #tooLarge(chunk: Buffer): void {
    const controller = this.#controller;
    if (!this.#finish()) return;
    const kept = this.#max - (this.#length - chunk.length);
    if (this.#statusCode >= 400) {
      if (kept > 0) this.#chunks.push(chunk.subarray(0, kept));
      this.#resolve(this.#answer(textOf(this.#chunks, this.#max)));
    } else {
      this.#chunks = [];
      this.#reject(answerTooLarge(this.#call.provider, this.#max));
    }
    controller?.abort(new undiciErrors.RequestAbortedError());
  }

  onResponseEnd(): void {
    if (!this.#finish()) return;
    if (this.#reader) this.#reader.end();
    else this.#resolve(this.#answer(textOf(this.#chunks, this.#length)));
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }

  /** The call failed: before its head, it is rejected; after, its body is missing (or its reader told). */
  fail(err: Error): void {
    if (!this.#finish()) return;
    if (this.#reader) return this.#reader.fail(err);
    // After the head, the answer stands and only its body is missing (what `.json()` rejects on).
    if (this.#statusCode !== 0) return this.#resolve(this.#answer(undefined));
    const c = this.#call;
    observeUpstream(c, 'error', this.#started);
    c.span?.end(undefined, err);
    this.#reject(connectionError(err, c.provider, c.timeouts));
  }

  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    this.#stopListening?.[Symbol.dispose]();
    this.#stopListening = undefined;
    this.#controller = undefined;
    return true;
  }

  #answer(text: string | undefined): UpstreamAnswer {
    const a = { statusCode: this.#statusCode, headers: this.#headers, text };
    this.#chunks = [];
    return a;
  }
}

/** The headers of an answer before its head came (never read then): one empty set, never written to. */
const noHeaders: Dispatcher.ResponseData['headers'] = Object.freeze({});

/** What undici's request() rejects with for an aborted signal. */
const reasonOf = (signal: AbortSignal): Error =>
  (signal.reason as Error | undefined) ?? new undiciErrors.RequestAbortedError();
