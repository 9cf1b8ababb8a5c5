// The same-format relay's proxy (src/families/chat/pass-through.ts), one per gateway, held by the
// services (src/services/runtime/services.ts). It lives here, below the families, because the
// services own it; the relay itself attaches each request's hooks through `hookRelay`.
import type { ClientRequest, IncomingMessage } from 'node:http';
import httpProxy from 'http-proxy';

export type RelayProxy = ReturnType<typeof httpProxy.createProxyServer>;

export type RelayHooks = {
  /** The upstream request is about to be sent (timers start watching it). */
  request: (proxyReq: ClientRequest) => void;
  /** The upstream answered: the relay handles the response itself (`selfHandleResponse`). */
  response: (proxyRes: IncomingMessage) => void;
};

/**
 * Each relayed request's own hooks, which the proxy's events look up, on the client's request under
 * a symbol until the relay settles (`unhookRelay`). Not in a WeakMap: the hooks' closures reach
 * the request that keys them, and V8's young-generation GC treats a WeakMap's values as live, so
 * every relayed request's whole object graph (its bodies, headers, the upstream request and
 * response) survived each scavenge and was promoted: 16 KB a request, most of the relay's GC time
 * (bench/RESULTS.md, "Session 9"; test/resilience/relay-unhooked.test.ts).
 */
const hooksKey = Symbol('polygate.relayHooks');
type Hooked = IncomingMessage & { [hooksKey]?: RelayHooks };

export function createRelayProxy(): RelayProxy {
  // `toProxy` only skips http-proxy's `url.parse` of the client's path per request, whose result
  // `ignorePath` throws away: the upstream path is the target's (node_modules/http-proxy/lib/http-proxy/common.js).
  const proxy = httpProxy.createProxyServer({
    selfHandleResponse: true,
    changeOrigin: true,
    xfwd: false,
    ignorePath: true,
    toProxy: true,
  });
  proxy.on('proxyRes', (proxyRes, req: Hooked) => req[hooksKey]?.response(proxyRes));
  proxy.on('proxyReq', (proxyReq, req: Hooked) => req[hooksKey]?.request(proxyReq));
  return proxy;
}

/** Hooks for one client request relayed through a proxy made by createRelayProxy. */
export function hookRelay(req: IncomingMessage, h: RelayHooks): void {
  (req as Hooked)[hooksKey] = h;
}

/** The relay of `req` has settled: its hooks are let go (a fallback's next relay hooks its own). */
export function unhookRelay(req: IncomingMessage): void {
  (req as Hooked)[hooksKey] = undefined;
}

/** Whether a relay's hooks are still on `req` (tests). */
export const relayHooked = (req: IncomingMessage): boolean => (req as Hooked)[hooksKey] !== undefined;
