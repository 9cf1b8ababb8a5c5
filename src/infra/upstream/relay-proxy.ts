// The same-format relay's proxy (src/families/chat/pass-through.ts), one per gateway, held by the
// services (src/services/runtime/services.ts). It lives here, below the families, because the
// services own it; the relay itself attaches each request's hooks through `hookRelay`.
import type { Agent, ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Stream } from 'node:stream';
import type { Url } from 'node:url';
import httpProxy from 'http-proxy';

type ProxyServer = ReturnType<typeof httpProxy.createProxyServer>;

export type RelayProxy = {
  /**
   * Relays `req` to `target` (one upstream path of one provider, always with the same `agent`): the
   * upstream request is announced to the hooks set with `hookRelay`, which send its body.
   */
  web(req: IncomingMessage, res: ServerResponse, target: Url, agent: Agent, onError: (err: Error) => void): void;
};

export type RelayHooks = {
  /** The upstream request has its socket: the hook sends its body (timers start watching it). */
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

/**
 * http-proxy's `buffer` (what it pipes into the upstream request instead of the client's request,
 * which koa-body has read already): the relay's body is written by the `request` hook, from the
 * body the relay holds, so the proxy's options need nothing of one request.
 */
const bodyFromHook: Pick<Stream, 'pipe'> = { pipe: <T extends NodeJS.WritableStream>(to: T): T => to };

/**
 * One http-proxy server per relay target, with the target, agent and body source in its own
 * options: `web` is then called with no options of the request's, and copies none (with any, it
 * copies the proxy's options and the request's into a fresh object through `util._extend`, per
 * request: bench/RESULTS.md, "Session 12: the relay (passthru)").
 */
function proxyFor(target: Url, agent: Agent): ProxyServer {
  // `toProxy` only skips http-proxy's `url.parse` of the client's path per request, whose result
  // `ignorePath` throws away: the upstream path is the target's (node_modules/http-proxy/lib/http-proxy/common.js).
  const proxy = httpProxy.createProxyServer({
    target,
    agent,
    buffer: bodyFromHook as Stream,
    selfHandleResponse: true,
    changeOrigin: true,
    xfwd: false,
    ignorePath: true,
    toProxy: true,
  });
  // Every `web` call passes its own error callback, so http-proxy emits no 'error' here; the
  // listener keeps one it ever did emit from throwing out of the emitter (no emitter without one).
  proxy.on('error', () => {});
  proxy.on('proxyRes', (proxyRes, req: Hooked) => req[hooksKey]?.response(proxyRes));
  proxy.on('proxyReq', (proxyReq, req: Hooked) => req[hooksKey]?.request(proxyReq));
  return proxy;
}

export function createRelayProxy(): RelayProxy {
  // Keyed by the provider's own target objects (HttpChatProvider.relayTarget, bounded): a proxy
  // lives as long as its target, and a target's provider always relays through the same agent.
  const proxies = new WeakMap<Url, ProxyServer>();
  return {
    web(req, res, target, agent, onError) {
      let proxy = proxies.get(target);
      if (!proxy) proxies.set(target, (proxy = proxyFor(target, agent)));
      // `web(req, res, callback)`: its options are optional (http-proxy parses them off the arguments' end),
      // though @types/http-proxy spells the callback after them.
      const web = proxy.web as (req: IncomingMessage, res: ServerResponse, callback: (err: Error) => void) => void;
      web.call(proxy, req, res, onError);
    },
  };
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
