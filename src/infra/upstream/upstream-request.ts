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
import { defaultUpstream } from '../config/upstream-defaults.ts';
import { GatewayError } from '../../ir/gateway-error.ts';

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
  /** `upstream.max_answer_bytes`: the most of its answer held in memory (unset: the default, 64 MiB). */
  maxAnswerBytes?: number;
};

/** The default of `upstream.max_answer_bytes` (src/infra/config/upstream-defaults.ts). */
export const defaultMaxAnswerBytes = defaultUpstream.max_answer_bytes;

/**
 * An upstream answer (or one SSE event of it) past `upstream.max_answer_bytes`: the upstream's
 * failure (502, classed as an answer that is not JSON is), naming the setting and its value,
 * never the upstream's bytes.
 */
export function answerTooLarge(provider: string, max: number, what = 'an answer'): GatewayError {
  return new GatewayError(
    'upstream',
    `provider '${provider}' sent ${what} larger than upstream.max_answer_bytes (${max} bytes)`,
  );
}

/**
 * A signal that never aborts: a call that runs to its end whether or not its client stays (a JSON
 * answer's, src/families/chat/chat-handler.ts). undici is then given no signal at all: it adds and
 * removes an abort listener per call on the signal it is given, and on one signal shared by every
 * call in flight each add walks the listeners of all the others.
 */
export const neverAborted: AbortSignal = new AbortController().signal;

/** Where a URL points, as undici's dispatchers take it; `undefined` for what undici itself should judge. */
export type Target = { origin: string; path: string };

/**
 * Upstream URLs by their text: a provider calls the same few URLs (its base_url and paths) for
 * every request, and undici's `request(url)` parses the text into a URL object each time. Bounded:
 * a URL carrying something per request (a model in the path) cannot grow it without limit.
 */
const targets = new Map<string, Target | undefined>();

export function targetOf(url: string): Target | undefined {
  let t = targets.get(url);
  if (t !== undefined || targets.has(url)) return t;
  try {
    const u = new URL(url);
    // What undici's own parse accepts; anything else (another scheme) goes to it, which throws its own error.
    if ((u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password)
      t = { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
  } catch {
    t = undefined;
  }
  if (targets.size >= 1024) targets.clear();
  targets.set(url, t);
  return t;
}

/**
 * POSTs one request upstream. Resolves with the response whatever its status (the caller decodes
 * an error in its format); rejects, when no answer came, with a GatewayError naming the timeout
 * that fired or marked as a connection failure.
 */
export async function upstreamRequest(c: UpstreamCall): Promise<Dispatcher.ResponseData> {
  const started = performance.now();
  let res: Dispatcher.ResponseData;
  try {
    const options = {
      method: 'POST' as const,
      signal: c.signal === neverAborted ? undefined : c.signal,
      headersTimeout: c.timeouts.firstByteMs,
      bodyTimeout: c.timeouts.idleMs,
      headers: c.headers,
      body: c.body,
    };
    const target = targetOf(c.url);
    // The dispatcher's own request with the URL already split: what undici's `request(url)` does after parsing it.
    res = await (target
      ? c.dispatcher.request({ origin: target.origin, path: target.path, ...options })
      : request(c.url, { ...options, dispatcher: c.dispatcher }));
  } catch (e) {
    observeUpstream(c, 'error', started);
    c.span?.end(undefined, e as Error);
    throw connectionError(e, c.provider, c.timeouts);
  }
  observeUpstream(c, String(res.statusCode), started);
  c.span?.end(res.statusCode);
  return res;
}

/** The call's duration in the upstream histogram, by provider, format and outcome (status or `error`). */
export function observeUpstream(c: UpstreamCall, outcome: string, started: number): void {
  upstreamDuration.observe(
    { provider: c.provider, upstream_format: c.upstreamFormat, outcome },
    (performance.now() - started) / 1000,
  );
}

/** JSON when the text is JSON, else the text: the formats' error decoders take either. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What is kept of an upstream's error body: it is read for its message (the relay keeps as much). */
export const errorBodyBytes = 65_536;

/**
 * An upstream error body for a format's error decoder: its first `errorBodyBytes` (or `max`, if
 * less: the rest is not read, and the call is ended), a cut or timed-out read keeping what arrived.
 */
export async function errorBodyOf(
  res: Dispatcher.ResponseData,
  scrub: (text: string) => string = (t) => t,
  max = defaultMaxAnswerBytes,
): Promise<unknown> {
  return jsonOrText(scrub((await boundedText(res.body, Math.min(max, errorBodyBytes))).text));
}

/**
 * A body parsed as undici's `.json()` parses it, read to at most `max` bytes: past them the call
 * is ended and this rejects with answerTooLarge; a body cut, timed out or not JSON rejects with
 * the upstream's "not JSON" failure (a GatewayError, 502), as providers classed `.json()` rejecting.
 */
export async function boundedJson(
  body: Dispatcher.ResponseData['body'],
  provider: string,
  max = defaultMaxAnswerBytes,
): Promise<unknown> {
  const read = await boundedText(body, max);
  if (read.over) throw answerTooLarge(provider, max);
  try {
    if (read.failed) throw new Error('cut');
    return JSON.parse(read.text);
  } catch {
    throw new GatewayError('upstream', `provider '${provider}' answered with a body that is not JSON`);
  }
}

/**
 * A body read as undici's `.text()` reads it (UTF-8, a leading BOM dropped), but never more than
 * `max` bytes: past them the body is destroyed (its connection freed) and `over` is set, the text
 * holding the first `max` bytes. A read that fails (`failed`) keeps what arrived.
 */
export async function boundedText(
  body: Dispatcher.ResponseData['body'],
  max: number,
): Promise<{ text: string; over: boolean; failed: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  let failed = false;
  try {
    for await (const c of body as AsyncIterable<Buffer>) {
      if (size + c.length > max) {
        chunks.push(c.subarray(0, max - size));
        size = max;
        over = true;
        body.destroy();
        break;
      }
      chunks.push(c);
      size += c.length;
    }
  } catch {
    // cut or timed out while reading: what arrived stands
    failed = true;
  }
  return { text: textOf(chunks, size), over, failed };
}

/** The chunks as text, as undici's `.text()` decodes them (UTF-8, a leading BOM skipped). */
export function textOf(chunks: Buffer[], length: number): string {
  if (chunks.length === 0 || length === 0) return '';
  const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  const start = buf.length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  return buf.toString('utf8', start);
}
