import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayError } from '../../ir/gateway-error.ts';
import type { RouteTimeouts } from '../../infra/config/route-policy.ts';
import { timeoutError, type TimeoutSetting } from '../../infra/upstream/connection-error.ts';

/** The error a relay timer destroys the upstream request with; http-proxy hands it back. */
export class UpstreamTimeout extends Error {
  readonly error: GatewayError;
  constructor(error: GatewayError) {
    super(error.message);
    this.error = error;
  }
}

export type RelayTimers = {
  /** Hooked to http-proxy's `proxyReq`: connect, then first-byte (response headers). */
  watchRequest(proxyReq: ClientRequest): void;
  /** The response headers arrived: from now on the idle gap between body chunks is watched. */
  responded(proxyRes: IncomingMessage): void;
  /**
   * A body chunk arrived: the idle timer starts over. Called by the relay's own 'data' handler (and
   * its error-body reader) rather than from a second 'data' listener, with which node's emitter
   * would copy its listener array for every chunk.
   */
  chunk(): void;
  /** The timeout that cut the response, if one did. */
  fired(): GatewayError | undefined;
  clear(): void;
};

/**
 * The same three upstream timeouts the undici path has (src/infra/upstream/upstream-request.ts), with
 * the same errors (src/infra/upstream/connection-error.ts), for the pass-through relay, whose
 * http-proxy only knows one socket inactivity timeout.
 */
export function relayTimers(provider: string, t: RouteTimeouts): RelayTimers {
  let timer: NodeJS.Timeout | undefined;
  let fired: GatewayError | undefined;
  const arm = (ms: number, onFire: () => void): void => {
    clearTimeout(timer);
    timer = setTimeout(onFire, ms);
  };
  return {
    watchRequest(proxyReq) {
      const fail = (setting: TimeoutSetting, ms: number): void => {
        fired = timeoutError(provider, setting, ms);
        proxyReq.destroy(new UpstreamTimeout(fired));
      };
      const watchSocket = (socket: Socket): void => {
        const connected = (): void => arm(t.firstByteMs, () => fail('first-byte', t.firstByteMs));
        // A kept-alive socket is connected already: no connect timer to start and stop.
        if (socket.connecting) {
          arm(t.connectMs, () => fail('connect', t.connectMs));
          socket.once('connect', connected);
        } else connected();
      };
      // http-proxy announces the request once it has its socket, usually.
      if (proxyReq.socket) watchSocket(proxyReq.socket);
      else {
        arm(t.connectMs, () => fail('connect', t.connectMs));
        proxyReq.once('socket', watchSocket);
      }
    },
    responded(proxyRes) {
      clearTimeout(timer);
      // Cleared by the relay (`clear`) when the response closes or its error body is read: no
      // 'close' listener of its own (`once` wraps each listener in two more objects).
      timer = setTimeout(() => {
        fired = timeoutError(provider, 'idle', t.idleMs);
        // Without an error argument: nobody listens for 'error' on a relayed response; its
        // 'close' handler sends the family's in-stream error.
        proxyRes.destroy();
      }, t.idleMs);
    },
    // Each chunk restarts the same timer (no new one per chunk of a long stream); before the
    // response, `timer` is the first-byte timer, which no chunk can come before.
    chunk: () => timer?.refresh(),
    fired: () => fired,
    clear: () => clearTimeout(timer),
  };
}
