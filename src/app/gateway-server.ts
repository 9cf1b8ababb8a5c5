// The HTTP server polygate serves on, as the process entry (src/main.ts) builds it and as the
// in-process test gateway (test/helpers/in-process-gateway.ts) builds it too, so that a test run
// in the test's own process meets the same timeouts, connection cap and WebSocket upgrades.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { serveResponsesSockets, type ResponsesSockets } from '../families/responses/serve-responses-sockets.ts';
import type { GatewayConfig } from '../infra/config/gateway-config.ts';
import type { RuntimeRef } from '../services/runtime/runtime.ts';
import type { RuntimeKeys } from '../services/auth/runtime-keys.ts';

export function createGatewayServer(
  app: Koa,
  ref: RuntimeRef,
  log: Logger,
  /** The keys created at runtime (issue #25): a socket's handshake accepts them as HTTP does. */
  runtimeKeys?: RuntimeKeys,
): { server: Server; responsesSockets: ResponsesSockets } {
  const listen: GatewayConfig['listen'] = ref.current.config.listen;
  const server = createServer(
    {
      // Node's request timer bounds receiving a request (headers and body), never the response, so
      // long streams are not cut. The family-shaped 408 of the body deadline (src/app/app.ts) comes
      // first; this is the backstop for a request no handler reads.
      headersTimeout: listen.headers_timeout_ms,
      requestTimeout: listen.body_timeout_ms > 0 ? listen.headers_timeout_ms + listen.body_timeout_ms + 5_000 : 0,
      // How often Node looks for expired requests (its default, 30 s, would stretch short timeouts).
      connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(listen.headers_timeout_ms / 4))),
    },
    app.callback(),
  );
  server.keepAliveTimeout = 65_000;
  // Each connection is a descriptor: past the cap new ones are closed at once, so a flood of idle or
  // trickling clients cannot take the descriptors that upstream calls and spawned tools need.
  server.maxConnections = listen.max_connections ?? defaultMaxConnections();
  // Responses over WebSocket: upgrades of GET /v1/responses on this same server (docs/responses-websocket.md).
  const responsesSockets = serveResponsesSockets(server, ref, log, runtimeKeys);
  return { server, responsesSockets };
}

/**
 * Half the process's descriptor limit (Node raises the soft limit to the hard one at start): each
 * client connection may hold an upstream socket too, and the rest is kept for the store, spawned
 * tools (three pipes each) and the log. 1024 where the limit cannot be read.
 */
function defaultMaxConnections(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    if (Number.isFinite(soft) && soft > 0) return Math.max(64, Math.floor((soft - 256) / 2));
  } catch {
    // not Linux: fall through
  }
  return 1024;
}
