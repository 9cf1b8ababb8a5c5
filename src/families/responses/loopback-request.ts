import { request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { duplexPair } from 'node:stream';
import { bindSocketMemory, type SocketMemory } from '../../services/sessions/socket-memory.ts';

/** One request sent into polygate's own HTTP server without a network socket. */
export type LoopbackCall = { response: Promise<IncomingMessage>; abort: () => void };

/**
 * Runs `POST path` through `server` exactly as a client's HTTP request would run (the same Koa
 * app, its auth, limits, log line, metrics and pipeline), over an in-memory connection. This is
 * how a Responses WebSocket serves `response.create` without a second code path: the socket only
 * turns the HTTP answer (an event stream or an error body) into messages.
 * The server end of the connection is bound to the socket's memory (src/services/sessions/socket-memory.ts).
 */
export function loopbackRequest(
  server: Server,
  path: string,
  headers: IncomingHttpHeaders,
  body: string,
  memory: SocketMemory,
): LoopbackCall {
  const [clientEnd, serverEnd] = duplexPair();
  bindSocketMemory(serverEnd, memory);
  server.emit('connection', serverEnd);
  const req = request({
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    createConnection: () => clientEnd as unknown as import('node:net').Socket,
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    // `on`, not `once`: a second error (an abort after a failure) must find a listener too.
    req.on('error', reject);
  });
  req.end(body);
  return {
    response,
    // Destroying one end of a pair does not close the other: both go, so the server sees its
    // client leave (the response's 'close') and aborts the upstream call.
    abort: () => {
      req.destroy();
      clientEnd.destroy();
      serverEnd.destroy();
    },
  };
}
