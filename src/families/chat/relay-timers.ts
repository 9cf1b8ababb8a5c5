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
  return new Timers(provider, t);
}

/**
 * One object per relay, its timers' callbacks static with their arguments (`setTimeout(fn, ms,
 * ...args)`): no closure per timer and per method for every relayed request (issue #28, bytes per
 * request).
 */
class Timers implements RelayTimers {
  readonly #provider: string;
  readonly #t: RouteTimeouts;
  #timer: NodeJS.Timeout | undefined;
  #fired: GatewayError | undefined;
  #request: ClientRequest | undefined;
  #response: IncomingMessage | undefined;

  constructor(provider: string, t: RouteTimeouts) {
    this.#provider = provider;
    this.#t = t;
  }

  watchRequest(proxyReq: ClientRequest): void {
    this.#request = proxyReq;
    // http-proxy announces the request once it has its socket, usually.
    if (proxyReq.socket) this.#watchSocket(proxyReq.socket);
    else {
      this.#arm('connect', this.#t.connectMs);
      proxyReq.once('socket', (socket: Socket) => this.#watchSocket(socket));
    }
  }

  #watchSocket(socket: Socket): void {
    // A kept-alive socket is connected already: no connect timer to start and stop.
    if (socket.connecting) {
      this.#arm('connect', this.#t.connectMs);
      socket.once('connect', () => this.#arm('first-byte', this.#t.firstByteMs));
    } else this.#arm('first-byte', this.#t.firstByteMs);
  }

  #arm(setting: TimeoutSetting, ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(Timers.#fail, ms, this, setting, ms);
  }

  static #fail(self: Timers, setting: TimeoutSetting, ms: number): void {
    self.#fired = timeoutError(self.#provider, setting, ms);
    self.#request?.destroy(new UpstreamTimeout(self.#fired));
  }

  responded(proxyRes: IncomingMessage): void {
    clearTimeout(this.#timer);
    this.#response = proxyRes;
    // Cleared by the relay (`clear`) when the response closes or its error body is read: no
    // 'close' listener of its own (`once` wraps each listener in two more objects).
    this.#timer = setTimeout(Timers.#idle, this.#t.idleMs, this);
  }

  static #idle(self: Timers): void {
    self.#fired = timeoutError(self.#provider, 'idle', self.#t.idleMs);
    // Without an error argument: nobody listens for 'error' on a relayed response; its
    // 'close' handler sends the family's in-stream error.
    self.#response?.destroy();
  }

  // Each chunk restarts the same timer (no new one per chunk of a long stream); before the
  // response, the timer is the first-byte timer, which no chunk can come before.
  chunk(): void {
    this.#timer?.refresh();
  }

  fired(): GatewayError | undefined {
    return this.#fired;
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}
