import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../ir/gateway-error.ts';
import type { RouteTimeouts } from '../resilience/route-policy.ts';

/** Statuses worth another attempt: the upstream is throttling, timing out or failing. */
export const retryableStatus = (status: number): boolean => status === 408 || status === 429 || (status >= 500 && status !== 501);

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
  /** The timeout that cut the response, if one did. */
  fired(): GatewayError | undefined;
  clear(): void;
};

/**
 * The same three upstream timeouts the undici path has (src/providers/http-chat-provider.ts),
 * for the pass-through relay, whose http-proxy only knows one socket inactivity timeout.
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
      const fail = (what: string, ms: number, setting: string): void => {
        fired = new GatewayError('timeout', `provider '${provider}' ${what} within ${ms} ms (${setting})`);
        proxyReq.destroy(new UpstreamTimeout(fired));
      };
      arm(t.connectMs, () => fail('did not accept the connection', t.connectMs, 'connect timeout'));
      const watchSocket = (socket: Socket): void => {
        const connected = (): void => arm(t.firstByteMs, () => fail('did not start answering', t.firstByteMs, 'first-byte timeout'));
        // A kept-alive socket is connected already.
        if (socket.connecting) socket.once('connect', connected);
        else connected();
      };
      // http-proxy announces the request once it has its socket, usually.
      if (proxyReq.socket) watchSocket(proxyReq.socket);
      else proxyReq.once('socket', watchSocket);
    },
    responded(proxyRes) {
      const idle = (): void =>
        arm(t.idleMs, () => {
          fired = new GatewayError('timeout', `provider '${provider}' sent nothing more within ${t.idleMs} ms (idle timeout)`);
          // Without an error argument: nobody listens for 'error' on a relayed response; its
          // 'close' handler sends the family's in-stream error.
          proxyRes.destroy();
        });
      idle();
      proxyRes.on('data', idle);
      proxyRes.once('close', () => clearTimeout(timer));
    },
    fired: () => fired,
    clear: () => clearTimeout(timer),
  };
}
