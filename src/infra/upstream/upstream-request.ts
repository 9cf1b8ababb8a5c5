// The one HTTP client of upstream calls polygate makes itself (translated chat calls, speech,
// music tasks): undici on the runtime's pools (src/services/runtime/runtime.ts), the route's first-byte and idle
// timeouts, the upstream-duration metric, the call's span, and failures classified once
// (src/infra/upstream/connection-error.ts). Same-format relays use http-proxy
// (src/families/chat/pass-through.ts) with the same timeouts and errors.
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { upstreamDuration } from '../metrics/registry.ts';
import type { RouteTimeouts } from '../config/route-policy.ts';
import type { UpstreamSpan } from '../tracing/upstream-span.ts';
import { connectionError } from './connection-error.ts';

export type UpstreamCall = {
  provider: string;
  /** The upstream-duration metric's `upstream_format` label. */
  upstreamFormat: string;
  url: string;
  /** A pool of the runtime (src/services/runtime/runtime.ts): its connect timeout is the pool's. */
  dispatcher: Dispatcher;
  /** The connect timeout is only named in the error; the pool enforces it. */
  timeouts: Pick<RouteTimeouts, 'firstByteMs' | 'idleMs'> & Partial<RouteTimeouts>;
  headers: Record<string, string>;
  body: string | Readable;
  signal?: AbortSignal;
  /** The call's span (traced requests): ended with the status or the error. */
  span?: UpstreamSpan;
};

/**
 * POSTs one request upstream. Resolves with the response whatever its status (the caller decodes
 * an error in its format); rejects, when no answer came, with a GatewayError naming the timeout
 * that fired or marked as a connection failure.
 */
export async function upstreamRequest(c: UpstreamCall): Promise<Dispatcher.ResponseData> {
  const started = performance.now();
  const observe = (outcome: string): void =>
    upstreamDuration.observe(
      { provider: c.provider, upstream_format: c.upstreamFormat, outcome },
      (performance.now() - started) / 1000,
    );
  let res: Dispatcher.ResponseData;
  try {
    res = await request(c.url, {
      method: 'POST',
      dispatcher: c.dispatcher,
      signal: c.signal,
      headersTimeout: c.timeouts.firstByteMs,
      bodyTimeout: c.timeouts.idleMs,
      headers: c.headers,
      body: c.body,
    });
  } catch (e) {
    observe('error');
    c.span?.end(undefined, e as Error);
    throw connectionError(e, c.provider, c.timeouts);
  }
  observe(String(res.statusCode));
  c.span?.end(res.statusCode);
  return res;
}

/** JSON when the text is JSON, else the text: the formats' error decoders take either. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An upstream error body, read whole (a cut or timed-out read keeps what arrived), for a format's error decoder. */
export async function errorBodyOf(
  res: Dispatcher.ResponseData,
  scrub: (text: string) => string = (t) => t,
): Promise<unknown> {
  return jsonOrText(scrub(await res.body.text().catch(() => '')));
}
