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

/** Each relayed request's own hooks, which the proxy's events look up (keyed by the client's request). */
const hooks = new WeakMap<IncomingMessage, RelayHooks>();

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
  proxy.on('proxyRes', (proxyRes, req) => hooks.get(req)?.response(proxyRes));
  proxy.on('proxyReq', (proxyReq, req) => hooks.get(req)?.request(proxyReq));
  return proxy;
}

/** Hooks for one client request relayed through a proxy made by createRelayProxy. */
export function hookRelay(req: IncomingMessage, h: RelayHooks): void {
  hooks.set(req, h);
}
