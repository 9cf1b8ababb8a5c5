import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { authenticateKey, isRefusal, type RuntimeKeys } from '../../services/auth/runtime-keys.ts';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { openaiResponses } from '../../../adapters/openai-responses/index.ts';
import { encodeFormatError } from '../../infra/http/encode-format-error.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { RuntimeRef } from '../../services/runtime/runtime.ts';
import { SocketMemoryPool } from '../../services/sessions/socket-memory.ts';
import { setResponsesSocketBytes } from '../../infra/metrics/registry.ts';
import { ResponsesSocketConnection } from './responses-socket-connection.ts';

export type ResponsesSockets = {
  /** SIGTERM: no new socket; each open one closes with 1001 once its responses have finished. Resolves when all are closed. */
  drain(): Promise<void>;
  /** Past the shutdown deadline: cut what is left. */
  terminate(): void;
};

/** Handshake headers that describe the upgrade itself, not the client: never copied onto its responses. */
const upgradeOnly =
  /^(host|connection|upgrade|content-length|content-type|transfer-encoding|accept|accept-encoding|x-request-id|sec-websocket-.*)$/;

/**
 * The `openai-beta` feature that asks for the socket itself (`responses_websockets=<date>`, sent by
 * Codex): it names polygate's transport, not the upstream's, so the HTTP turns the socket runs
 * (and a same-format route relays them) go without it; the client's other betas stay.
 */
function withoutSocketBeta(headers: IncomingHttpHeaders): void {
  const beta = headers['openai-beta'];
  if (typeof beta !== 'string') return;
  const kept = beta
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '' && !/^responses_websockets(=|$)/i.test(b));
  if (kept.length > 0) headers['openai-beta'] = kept.join(', ');
  else delete headers['openai-beta'];
}

/**
 * Responses over WebSocket on `GET /v1/responses` (docs/responses-websocket.md), on polygate's own
 * HTTP server. The key is checked at the handshake (401 refuses the upgrade); each
 * `response.create` then runs through the HTTP route with the handshake's credentials, so every
 * per-request rule (workspace, model access, rpm/tpm/concurrency, budget) applies to it.
 * `responses_websocket` is read once at start, like `listen`.
 */
export function serveResponsesSockets(
  server: Server,
  ref: RuntimeRef,
  log: Logger,
  runtimeKeys?: RuntimeKeys,
): ResponsesSockets {
  const config = ref.current.config.responses_websocket;
  // Past maxPayload ws closes the socket with 1009 (message too big).
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.max_message_bytes });
  // Without its own server `wss` has nothing to fail on today; a listener keeps a later ws from ending the process.
  wss.on('error', (err) => log.warn({ err }, 'responses websocket server error'));
  const open = new Set<ResponsesSocketConnection>();
  const pool = new SocketMemoryPool(config.max_total_bytes);
  setResponsesSocketBytes(() => pool.used);
  let draining = false;

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands an upgrade's socket over without its own error listener: a client that resets
    // it before (or while) it is refused or upgraded must not end the process (issue #30).
    socket.on('error', () => socket.destroy());
    req.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://polygate');
    if (!/^\/v1\/responses\/?$/i.test(url.pathname) || req.method !== 'GET')
      return refuse(
        socket,
        new GatewayError(
          'not-found',
          `no WebSocket at ${url.pathname.slice(0, 200)}; Responses over WebSocket is GET /v1/responses`,
        ),
      );
    if (draining) return refuse(socket, new GatewayError('unavailable', 'polygate is shutting down'));
    const credential = openaiResponses.credential(req.headers, Object.fromEntries(url.searchParams));
    // The YAML's keys, then those created at runtime (issue #25), as every HTTP route has them.
    const key = authenticateKey(ref.current.keys, runtimeKeys, credential);
    if (!key) return refuse(socket, new GatewayError('authentication', 'invalid or missing API key'));
    if (isRefusal(key)) return refuse(socket, new GatewayError('authentication', key.refused));
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!upgradeOnly.test(name)) headers[name] = value;
    headers.accept = 'text/event-stream';
    withoutSocketBeta(headers);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new ResponsesSocketConnection(ws, { server, headers, config, log, keyId: key.id, pool });
      open.add(conn);
      void conn.closed.then(() => open.delete(conn));
    });
  });

  return {
    async drain() {
      draining = true;
      for (const conn of open) conn.end(1001, 'server shutting down');
      await Promise.all([...open].map((c) => c.closed));
    },
    terminate() {
      for (const conn of open) conn.terminate();
    },
  };
}

/** A refused handshake gets a plain HTTP answer with the Responses error body (as the POST route would give). */
function refuse(socket: Duplex, err: GatewayError): void {
  const enc = encodeFormatError(openaiResponses, err);
  const body = JSON.stringify(enc.body);
  socket.end(
    `HTTP/1.1 ${enc.status} ${STATUS_CODES[enc.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
