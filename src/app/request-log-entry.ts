// What the request log (#25, docs/usage-and-tracing.md "Request log") takes from a request beyond
// its usage: its route, its timings, its warnings and, for the workspaces that capture content
// (usage.capture_content), its body and the bytes of its answer, stored beside its record once the
// answer has ended. Secrets are never stored: headers are not captured, and the credential the
// client presented is cut out of what is.
import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { RequestState } from '../services/runtime/request-state.ts';
import type { Ledger } from '../services/usage/ledger.ts';
import { boundRoute, boundWarnings } from '../services/usage/request-log.ts';
import type { UsageRecord } from '../services/usage/usage-record.ts';
import { scrubSecrets } from '../services/providers/scrub-secrets.ts';

type Capture = {
  /** Set at the first byte of the answer, when the key (and its workspace) is known; 0 = not captured. */
  limit: number | undefined;
  chunks: Buffer[];
  bytes: number;
  truncated: boolean;
  closed: boolean;
  record?: UsageRecord;
  ledger?: Ledger;
};

type Entry = { ctx: Koa.Context; started: number; stream?: { firstByteAt?: number }; capture?: Capture };

/**
 * One entry per request of a format, on its state under a symbol: a WeakMap entry per request cost
 * more (its ephemeron is collected apart from the state) and the state is dropped with the request.
 */
const entryKey = Symbol('request log entry');
type WithEntry = { [entryKey]?: Entry };
const entryOf = (state: RequestState): Entry | undefined => (state as WithEntry)[entryKey];

/** Bounded routes by router pattern: the patterns are few, and bounding one is a regex replace. */
const routes = new Map<string, string>();
function routeOf(ctx: Koa.Context): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched !== 'string') return boundRoute(ctx.path);
  let r = routes.get(matched);
  if (r === undefined) {
    r = boundRoute(matched);
    if (routes.size < 1000) routes.set(matched, r);
  }
  return r;
}

/**
 * Called by the request scope (src/app/app.ts) as a request arrives: `started` is its
 * performance.now(), `stream` the watch of its event stream's first byte.
 */
export function noteRequest(
  ctx: Koa.Context,
  state: RequestState,
  started: number,
  stream: { firstByteAt?: number } | undefined,
): void {
  const e: Entry = { ctx, started, stream };
  (state as WithEntry)[entryKey] = e;
  if (capturesAny(state.runtime.config.usage.capture_content)) tapAnswer(e, state);
}

/** True when some workspace captures content: a test without building the keys' array per request. */
function capturesAny(workspaces: Record<string, unknown>): boolean {
  for (const _ in workspaces) return true;
  return false;
}

/** The request log's fields of the record being built now. */
export function requestLogFields(
  state: RequestState,
): Pick<UsageRecord, 'route' | 'latency_ms' | 'ttfb_ms' | 'warnings' | 'content_captured'> {
  const e = entryOf(state);
  if (e === undefined) return { warnings: boundWarnings(state.warnings) };
  const now = performance.now();
  const firstByte = e.stream?.firstByteAt;
  return {
    // The route pattern, as the log line has it: a path can carry ids (the model is its own field).
    route: routeOf(e.ctx),
    latency_ms: Math.round((now - e.started) * 10) / 10,
    ttfb_ms: firstByte === undefined ? undefined : Math.round((firstByte - e.started) * 10) / 10,
    warnings: boundWarnings(state.warnings),
    content_captured: captureLimit(state) > 0 ? true : undefined,
  };
}

/** The workspace's max_bytes, or 0 when it does not capture content. */
const captureLimit = (state: RequestState): number =>
  (state.key && state.runtime.config.usage.capture_content[state.key.workspace]?.max_bytes) || 0;

/** The record of a request that captures content: its content is stored once the answer has ended too. */
export function recordBuilt(state: RequestState, record: UsageRecord): void {
  const e = entryOf(state);
  const c = e?.capture;
  if (e === undefined || c === undefined || !record.content_captured) return;
  c.record = record;
  c.ledger = state.services.ledger.of(state.runtime.config);
  store(e, state);
}

/**
 * Keeps the answer's bytes as written to the client (a stream as relayed or encoded), up to the
 * limit. Shared `write`, `end` and 'close' functions for every response, the tap's state on the
 * response under a symbol, as `watchEventStream` does (src/app/end-of-request.ts): a closure per
 * response stored as its `write` kept every request's objects alive through V8's young-generation
 * GCs until the next full one (bench/RESULTS.md, "Session 9").
 */
function tapAnswer(e: Entry, state: RequestState): void {
  e.capture = { limit: undefined, chunks: [], bytes: 0, truncated: false, closed: false };
  const res = e.ctx.res as Tapped;
  // The write and end beneath (the event-stream watch's, or the prototype's), called on.
  res[tapKey] = { entry: e, state, write: res.write as Tap['write'], end: res.end as Tap['end'] };
  res.write = tappedWrite as typeof res.write;
  res.end = tappedEnd as typeof res.end;
  res.on('close', tappedClose);
}

const tapKey = Symbol('polygate.requestLogTap');
type Tap = {
  entry: Entry;
  state: RequestState;
  write: (...args: unknown[]) => boolean;
  end: (...args: unknown[]) => unknown;
};
type Tapped = ServerResponse & { [tapKey]: Tap };

function tappedWrite(this: Tapped, ...args: unknown[]): boolean {
  const tap = this[tapKey];
  keep(tap, args[0], args[1]);
  return tap.write.apply(this, args);
}

function tappedEnd(this: Tapped, ...args: unknown[]): unknown {
  const tap = this[tapKey];
  keep(tap, args[0], args[1]);
  return tap.end.apply(this, args);
}

function tappedClose(this: Tapped): void {
  const { entry, state } = this[tapKey];
  if (entry.capture) entry.capture.closed = true;
  store(entry, state);
}

function keep(tap: Tap, chunk: unknown, encoding: unknown): void {
  const c = tap.entry.capture;
  if (c === undefined) return;
  c.limit ??= captureLimit(tap.state);
  if (c.limit === 0 || chunk === undefined || chunk === null || typeof chunk === 'function') return;
  const b = Buffer.isBuffer(chunk)
    ? chunk
    : chunk instanceof Uint8Array
      ? Buffer.from(chunk)
      : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  const room = c.limit - c.bytes;
  if (b.length > room) c.truncated = true;
  if (room <= 0) return;
  const part = b.length > room ? b.subarray(0, room) : b;
  // A copy: the caller may reuse its buffer after the write.
  c.chunks.push(Buffer.from(part));
  c.bytes += part.length;
}

/** Once both the answer has ended and the record is built: the content goes to the ledger's store. */
function store(e: Entry, state: RequestState): void {
  const c = e.capture;
  if (!c || !c.closed || !c.record || !c.ledger?.store.requestLog) return;
  const r = c.record;
  const log = c.ledger.store.requestLog;
  const limit = captureLimit(state) || c.limit || 0;
  e.capture = undefined;
  const secrets = presentedSecrets(e.ctx);
  const request = requestText(e.ctx.request.body, secrets);
  // Text answers only (JSON, event streams, text): audio is bytes no reader of the log can use.
  const type = String(e.ctx.res.getHeader('content-type') ?? '');
  const text = type === '' || /^(text\/|application\/([\w.+-]*\+)?json|application\/x-ndjson)/i.test(type);
  const response = text
    ? scrubSecrets(Buffer.concat(c.chunks).toString('utf8'), secrets)
    : `[${c.bytes}${c.truncated ? '+' : ''} bytes of ${type.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)}, not kept]`;
  const cut = (s: string): [string, boolean] => {
    const b = Buffer.from(s);
    return b.length > limit ? [b.subarray(0, limit).toString('utf8'), true] : [s, false];
  };
  const [req, reqCut] = request === null ? [null, false] : cut(request);
  void log
    .putContent({
      request_id: r.request_id,
      ts: r.ts,
      day: r.day,
      request: req,
      response: response === '' && c.bytes === 0 ? null : response,
      request_truncated: reqCut,
      response_truncated: c.truncated,
      max_bytes: limit,
    })
    .catch((err: unknown) => state.services.log.warn({ request_id: r.request_id, err }, 'request content not stored'));
}

/** The request body as text: JSON as parsed (whitespace aside), other text as sent; uploads (audio) are not kept. */
function requestText(body: unknown, secrets: readonly string[]): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return scrubSecrets(body, secrets);
  if (Buffer.isBuffer(body)) return null;
  return scrubSecrets(JSON.stringify(body) ?? '', secrets);
}

/** The credentials the client sent (the bare secret of each header that carries one, and a `key` query value). */
function presentedSecrets(ctx: Koa.Context): string[] {
  const out: string[] = [];
  for (const name of ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']) {
    const v = ctx.get(name).replace(/^(Bearer|Basic)\s+/i, '');
    if (v.length >= 8) out.push(v);
  }
  const key = ctx.query.key;
  if (typeof key === 'string' && key.length >= 8) out.push(key);
  return out;
}
