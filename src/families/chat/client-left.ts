import type { ServerResponse } from 'node:http';

/**
 * Whether the client of a request left before its answer was written, and an AbortSignal for the
 * calls that must stop when it does. Most requests never ask for the signal: a JSON answer's
 * upstream call runs to its end whatever the client does, and only reads `aborted` before the call
 * and at the end; the signal (an AbortController and a `close` listener on the response) is built
 * the first time a stream or a retry's wait asks for it. Before that, `aborted` reads the response
 * itself: closed (`destroyed`, set by node:http when the socket closes or after the answer) without
 * having finished is what the `close` listener would have seen.
 */
export class ClientLeft {
  readonly #res: ServerResponse;
  #controller: AbortController | undefined;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get aborted(): boolean {
    if (this.#controller) return this.#controller.signal.aborted;
    return this.#res.destroyed && !this.#res.writableFinished;
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const abort = (this.#controller = new AbortController());
    const res = this.#res;
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    // A client gone before the signal was asked for: 'close' came already.
    if (res.destroyed && !res.writableFinished) abort.abort();
    return abort.signal;
  }
}
