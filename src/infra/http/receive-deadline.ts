import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EncodedError } from '../../../adapters/shared/chat-adapter.ts';

/** Whether the client announced a body (a length above 0, or chunked framing). */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** What a request whose body missed its deadline is answered: the family's error, and headers to add. */
export type DeadlineAnswer = EncodedError & { extraHeaders: Record<string, string> };

/** One request's receive deadline; its request, response and argument are let go once it is cancelled. */
export type Deadline = {
  req: IncomingMessage | undefined;
  res: ServerResponse | undefined;
  arg: unknown;
  readonly answer: (arg: never) => DeadlineAnswer;
  /** When it passes, in performance.now()'s milliseconds. */
  readonly at: number;
  readonly queue: DeadlineQueue;
  prev: Deadline | undefined;
  next: Deadline | undefined;
};

/**
 * The deadlines of one duration, in arrival order, which is deadline order (every entry has the
 * same duration): one timer for the whole queue, set for its head, where each request had a timer,
 * a closure and an 'end' listener (bench/RESULTS.md, "Session 11"). A list linked both ways: a
 * cancelled entry leaves it at once, wherever it is (behind a slow body at the head too), so the
 * queue holds only the requests whose bodies are still awaited.
 */
class DeadlineQueue {
  readonly #ms: number;
  head: Deadline | undefined;
  #tail: Deadline | undefined;
  #armed = false;

  constructor(ms: number) {
    this.#ms = ms;
  }

  add(d: Deadline): void {
    d.prev = this.#tail;
    if (this.#tail === undefined) this.head = d;
    else this.#tail.next = d;
    this.#tail = d;
    if (!this.#armed) this.#arm(this.#ms);
  }

  remove(d: Deadline): void {
    if (d.prev === undefined) this.head = d.next;
    else d.prev.next = d.next;
    if (d.next === undefined) this.#tail = d.prev;
    else d.next.prev = d.prev;
    d.prev = d.next = undefined;
  }

  #arm(ms: number): void {
    this.#armed = true;
    // Unreferenced: a deadline never keeps the process up (each request's own timer did not).
    setTimeout(() => this.#expire(), ms).unref();
  }

  #expire(): void {
    this.#armed = false;
    const now = performance.now();
    for (let d = this.head; d !== undefined && d.at <= now; d = this.head) {
      const { req, res, arg } = d;
      d.req = d.res = d.arg = undefined;
      this.remove(d);
      if (req !== undefined && res !== undefined) timedOut(req, res, d.answer, arg as never);
    }
    if (this.head !== undefined) this.#arm(Math.max(1, Math.ceil(this.head.at - now)));
  }
}

const queues = new Map<number, DeadlineQueue>();

/**
 * Bounds the receive phase of one request: a body that has not fully arrived within `ms`
 * (listen.body_timeout_ms) gets the family's 408, sent with `connection: close`, and the socket
 * goes with it, so a client that trickles its body holds a descriptor for `ms` at most. The
 * response is not bounded: once the body is in, a stream may run as long as its upstream does.
 * A handler still waiting on the body sees the request cut and ends; the answer is already out.
 * `answer(arg)` builds that 408 (called only then; one function for every request, `arg` the
 * request's own). Returns the deadline for cancelDeadline (called when the response ends), or
 * undefined when there is none (no body announced, or no bound).
 */
export function receiveDeadline<T>(
  req: IncomingMessage,
  res: ServerResponse,
  ms: number,
  answer: (arg: T) => DeadlineAnswer,
  arg: T,
): Deadline | undefined {
  if (ms <= 0 || !announcesBody(req)) return undefined;
  let queue = queues.get(ms);
  if (queue === undefined) queues.set(ms, (queue = new DeadlineQueue(ms)));
  const d: Deadline = { req, res, arg, answer, at: performance.now() + ms, queue, prev: undefined, next: undefined };
  queue.add(d);
  return d;
}

/** Cancels a deadline (the response has ended): its request is let go now and never checked. */
export function cancelDeadline(d: Deadline): void {
  if (d.req === undefined) return;
  d.req = d.res = d.arg = undefined;
  d.queue.remove(d);
}

/** How many entries the queue of `ms` holds: for tests. */
export function deadlinesHeld(ms: number): number {
  let n = 0;
  for (let d = queues.get(ms)?.head; d !== undefined; d = d.next) n++;
  return n;
}

/** The 408 of a request whose body had not all arrived by its deadline (nothing when it had). */
function timedOut<T>(req: IncomingMessage, res: ServerResponse, answer: (arg: T) => DeadlineAnswer, arg: T): void {
  if (req.complete || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const enc = answer(arg);
  const body = Buffer.from(JSON.stringify(enc.body));
  res.writeHead(enc.status, {
    ...enc.headers,
    ...enc.extraHeaders,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(body.length),
    connection: 'close',
  });
  // Node ends a `connection: close` socket once the response is written; a client that
  // stopped reading must not keep it either.
  res.end(body, () => req.socket.destroy());
}

/** How long a client answered before its body arrived may go on sending it (see closeUnfinished). */
const lingerMs = 3_000;

/**
 * Called when a response has been written. If the request's body has not all arrived (the answer
 * came first: a 401, 404, 413…), Node reads and discards the rest to keep the connection, so a
 * client trickling a large body would hold its socket for as long as it liked. It gets
 * `lingerMs` to finish (an honest client uploading over a fast link does, and keeps its
 * connection), then the socket is closed. Closing at once (`connection: close`) would reset the
 * connection under a client still sending, which can lose the answer it has not read yet.
 */
export function closeUnfinished(req: IncomingMessage): void {
  if (!announcesBody(req) || req.complete) return;
  const timer = setTimeout(() => {
    if (!req.complete) req.socket.destroy();
  }, lingerMs);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.socket.once('close', () => clearTimeout(timer));
}
