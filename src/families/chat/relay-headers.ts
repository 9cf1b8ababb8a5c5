// The headers a relay passes on, in each direction, and the ones it keeps to itself
// (src/families/chat/pass-through.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamSpan } from '../../infra/tracing/upstream-span.ts';
import { boundBaggage, boundTraceparent, boundTracestate } from '../../infra/tracing/trace-context.ts';

/**
 * Headers the relay sets itself, or that belong to the client alone (beside the formats' credentials,
 * `credentialHeaders`). `content-encoding` among them: a compressed body was decoded on arrival and
 * the relay sends the JSON it parsed, uncompressed; the client's label on it would make the upstream
 * try to decompress plain JSON. `expect` too: the relay has the whole body already (the client's
 * 100-continue was answered on arrival), and http-proxy announces no `proxyReq` for a request
 * carrying it, so the relay's connect and first-byte timers would never arm
 * (test/resilience/relay-expect-continue.test.ts).
 */
const clientOnlyHeaders = new Set(['cookie', 'host', 'accept-encoding', 'content-encoding', 'expect']);
/**
 * Headers of one connection and its framing, relayed in neither direction (RFC 9110 7.6.1: the
 * `Connection` header, every field it names, and the classic hop-by-hop set): the relay keeps its
 * own upstream socket alive and re-frames both bodies (the request is sent with a content-length).
 * Also dropped both ways: `Proxy-*` (credentials and challenges for a proxy, not for the origin),
 * and `Forwarded`, `X-Forwarded-*`, `X-Real-IP` and `Via`: polygate calls the upstream as its own
 * client (with its own key), so a client's claims about addresses and proxies on its side are not
 * passed on, and the upstream's proxy chain is not shown to the client.
 */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'forwarded',
  'via',
  'x-real-ip',
]);

/**
 * What an upstream's error answer may pass on to the client beside its body: its type, when to
 * retry, and rate-limit state (what SDKs read to back off). Anything else an upstream put on an
 * error (a debug header quoting what it was sent, the operator's key among it) stays here (issue
 * #30, finding 8); every relayed value, on errors and answers alike, has the configured secrets
 * scrubbed as error bodies have.
 */
const errorHeaders = new Set(['content-type', 'retry-after', 'retry-after-ms', 'x-should-retry', 'request-id']);
export const errorHeader = (name: string): boolean =>
  errorHeaders.has(name) || name.startsWith('x-ratelimit-') || name.startsWith('anthropic-ratelimit-');

/**
 * The fields a message's `Connection` header names, lower-cased, or undefined when it names none:
 * split once per message, not once per header.
 */
export function connectionTokens(connection: string | string[] | undefined): ReadonlySet<string> | undefined {
  // `keep-alive` and `close`, what nearly every message says, name no field beyond the hop-by-hop set.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return undefined;
  const named = new Set<string>();
  for (const token of (Array.isArray(connection) ? connection.join(',') : connection).split(','))
    named.add(token.trim().toLowerCase());
  return named;
}

/** Whether a header stays on this side of the relay; `named`: what the message's Connection header names. */
export function dropped(name: string, named: ReadonlySet<string> | undefined): boolean {
  return (
    hopByHop.has(name) || name.startsWith('proxy-') || name.startsWith('x-forwarded-') || (named?.has(name) ?? false)
  );
}

/**
 * The client's trace-context headers as the W3C specifications bound them (a traced request's own
 * traceparent and tracestate replace them later, in the proxy's `headers`): a malformed
 * traceparent is dropped, tracestate and baggage are cut to whole members within their limits.
 */
function boundTraceContext(headers: IncomingHttpHeaders): void {
  if (headers.traceparent !== undefined) setOrDelete(headers, 'traceparent', boundTraceparent(headers.traceparent));
  if (headers.tracestate !== undefined) setOrDelete(headers, 'tracestate', boundTracestate(headers.tracestate));
  if (headers.baggage !== undefined) setOrDelete(headers, 'baggage', boundBaggage(headers.baggage));
}

function setOrDelete(headers: IncomingHttpHeaders, name: string, value: string | undefined): void {
  if (value === undefined) delete headers[name];
  else headers[name] = value;
}

/**
 * The headers of the upstream request, in a fresh object (deleting from the parsed one turns it
 * into a slow dictionary): the client's that may go upstream, then the provider's, the trace's and
 * the relay's own framing, each over what came before (a provider's configured headers never
 * change the framing). One object handed to http-proxy as the request's headers, rather than its
 * `headers` option, which it would merge into a second copy per request.
 */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  credentialHeaders: ReadonlySet<string>,
  length: number,
  provider: Record<string, string>,
  trace: UpstreamSpan | undefined,
): IncomingHttpHeaders {
  const named = connectionTokens(headers.connection);
  const out: IncomingHttpHeaders = {};
  for (const h in headers)
    if (!clientOnlyHeaders.has(h) && !credentialHeaders.has(h) && !dropped(h, named)) out[h] = headers[h];
  boundTraceContext(out);
  // Never an `expect` (a provider's configured headers included): http-proxy announces no upstream
  // request carrying one, and the relay's request hook is what sends the body (relay-proxy.ts).
  for (const h in provider) if (h.toLowerCase() !== 'expect') out[h] = provider[h];
  if (trace) for (const h in trace.headers) out[h] = trace.headers[h];
  out['content-length'] = String(length);
  out['content-type'] = 'application/json';
  out['accept-encoding'] = 'identity';
  return out;
}
