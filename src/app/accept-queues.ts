// More than one accept queue on the listening port (issue #28). libuv accepts ONE connection per
// turn of the event loop (libuv PR #3696: it relies on level-triggered polling to be told again),
// so a server accepts at most one connection per loop turn: when the loop is busy with a thousand
// streams' chunks and a turn takes 50 ms, it accepts 20 connections a second, and a burst of new
// streams waits seconds in the kernel's queue before polygate even sees it (measured with
// bench/stream-start-probe.ts: 1–2 accepts per 100 ms while the soak opened 500 streams a second).
// With SO_REUSEPORT the kernel spreads new connections over several listening sockets of the same
// port, and each is accepted from in every turn: N queues accept N connections a turn.
import net from 'node:net';
import type { Server } from 'node:http';

export type ListenOptions = { port: number; host: string; backlog: number; queues: number };

export type AcceptQueues = {
  /** Listening sockets in use (1 where SO_REUSEPORT is not available). */
  readonly count: number;
  /** Stops accepting on every queue; connections already open are left alone. */
  close(): void;
};

/**
 * `server.listen` with `queues` accept queues: the server's own socket and `queues - 1` more on the
 * same port, whose connections are handed to the server (its 'connection' event, as Node documents
 * for injected sockets), so timeouts, keep-alive and upgrades are the server's own. The connection
 * cap (`server.maxConnections`, read when listening) stays one cap over all queues.
 * `onListening` runs once the server's own socket listens (the port is known).
 */
export function listenWithAcceptQueues(server: Server, o: ListenOptions, onListening: () => void): AcceptQueues {
  // SO_REUSEPORT balances connections across sockets on Linux; elsewhere Node refuses the option.
  const count = process.platform === 'linux' ? Math.max(1, Math.floor(o.queues)) : 1;
  const extra: net.Server[] = [];
  const cap = server.maxConnections;
  let open = 0;
  let injected = 0;
  // Every connection the server takes, from any queue (counted only where there are several).
  if (count > 1)
    server.on('connection', (socket: net.Socket) => {
      open++;
      socket.once('close', () => open--);
    });
  const inject = (socket: net.Socket): void => {
    if (!server.listening || open >= cap) return void socket.destroy();
    injected++;
    // The server's own queue refuses past the cap less what the other queues hold.
    server.maxConnections = cap - injected;
    socket.once('close', () => {
      injected--;
      server.maxConnections = cap - injected;
    });
    server.emit('connection', socket);
  };
  const listenAll = (): void =>
    void server.listen(
      { port: o.port, host: o.host, backlog: o.backlog, ...(count > 1 ? { reusePort: true } : {}) },
      () => {
        const addr = server.address();
        const port = typeof addr === 'object' && addr ? addr.port : o.port;
        for (let i = 1; i < count; i++) {
          // As the http server's own socket is set up (allowHalfOpen: http answers a half-closed request; noDelay: no Nagle delay on frames).
          const q = net.createServer({ allowHalfOpen: true, noDelay: true }, inject);
          // A queue that cannot listen leaves the others serving.
          q.on('error', () => q.close());
          q.listen({ port, host: o.host, backlog: o.backlog, reusePort: true });
          extra.push(q);
        }
        onListening();
      },
    );
  if (count > 1 && o.port !== 0) {
    // With SO_REUSEPORT polygate could bind beside another process of the same user already on the
    // port (a second polygate started by mistake) and silently split its traffic: a plain bind
    // first fails there as Node's own listen does, with the server's 'error' (EADDRINUSE).
    const probe = net.createServer();
    probe.once('error', (e) => server.emit('error', e));
    probe.listen({ port: o.port, host: o.host }, () => probe.close(listenAll));
  } else listenAll();
  return {
    count,
    close: () => {
      net.Server.prototype.close.call(server);
      for (const q of extra) q.close();
    },
  };
}
