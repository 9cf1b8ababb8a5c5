// The relay's upstream target (src/infra/upstream/relay-proxy.ts) in the legacy `url.parse` shape
// http-proxy reads (`protocol`, `host`, `hostname`, `port`, `path`), built from a WHATWG URL:
// `url.parse()` is deprecated (DEP0169), and Node 24 printed its warning, a line that is not JSON,
// on stderr at the first relayed request of every process.
import type { Url } from 'node:url';

export function relayTargetOf(href: string): Url {
  const u = new URL(href);
  // url.parse gave an IPv6 literal without its brackets, which node:http's `hostname` wants.
  const hostname = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return {
    protocol: u.protocol,
    slashes: true,
    auth:
      u.username === ''
        ? null
        : decodeURIComponent(u.username) + (u.password === '' ? '' : `:${decodeURIComponent(u.password)}`),
    host: u.host,
    port: u.port === '' ? null : u.port,
    hostname,
    hash: u.hash === '' ? null : u.hash,
    search: u.search === '' ? null : u.search,
    query: u.search === '' ? null : u.search.slice(1),
    pathname: u.pathname,
    path: u.pathname + u.search,
    href: u.href,
  };
}
