import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EncodedError } from '../../../adapters/shared/chat-adapter.ts';

/** Whether the client announced a body (a length above 0, or chunked framing). */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Bounds the receive phase of one request: a body that has not fully arrived within `ms`
 * (listen.body_timeout_ms) gets the family's 408, sent with `connection: close`, and the socket
 * goes with it, so a client that trickles its body holds a descriptor for `ms` at most. The
 * response is not bounded: once the body is in, a stream may run as long as its upstream does.
 * A handler still waiting on the body sees the request cut and ends; the answer is already out.
 * Returns a function that cancels the deadline (called when the response ends).
 */
export function receiveDeadline(
  req: IncomingMessage,
  res: ServerResponse,
  ms: number,
  answer: () => EncodedError & { extraHeaders: Record<string, string> },
): () => void {
  if (ms <= 0 || !announcesBody(req)) return () => {};
  const timer = setTimeout(() => {
    if (req.complete || res.writableEnded) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const enc = answer();
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
  }, ms);
  timer.unref();
  const cancel = (): void => clearTimeout(timer);
  req.once('end', cancel);
  return cancel;
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
