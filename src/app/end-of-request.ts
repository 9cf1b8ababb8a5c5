// The end of one request (docs/architecture.md, "The life of one request", step 9): its log
// line, request metrics, ledger record (src/app/record-usage.ts) and the end of its trace, written
// once both its response has closed and its handler has settled. A relay (or a stream) ends its
// response before the handler has recorded the upstream's usage and outcome, which the line must
// carry; the app's request scope (src/app/app.ts) says when each happens.
import { ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { AccessLine } from '../infra/log/logger.ts';
import { cancelDeadline, type Deadline } from '../infra/http/receive-deadline.ts';
import type { FormatModule } from '../infra/formats/formats.ts';
import {
  inFlight,
  requestDuration,
  requestsTotal,
  streamChunksTotal,
  timeToFirstByte,
  translationDuration,
} from '../infra/metrics/registry.ts';
import { afterUpstream, type ChatState } from '../services/runtime/request-state.ts';
import { endRequestTrace } from '../services/tracing/request-trace.ts';
import { recordUsage } from './record-usage.ts';

/** What an event stream's writes showed: when its first body byte went out, and how many writes. */
export type EventStreamWatch = { firstByteAt?: number; chunks: number };

export type RequestFacts = {
  /** performance.now() when the request arrived. */
  readonly started: number;
  readonly format: FormatModule | undefined;
  /** The metrics' `family` label (`none` where the path names no format). */
  readonly familyLabel: string;
  /** An operator's probe (`/`, `/healthz`, `/metrics`): logged at debug level, not counted. */
  readonly ops: boolean;
  readonly stream: EventStreamWatch | undefined;
  readonly log: Logger;
  /** The access line without pino's redaction walk and serializer, for lines that carry no request body. */
  readonly accessLog: AccessLine;
  /** The request's hold on its runtime (Runtime.hold), let go once the response has closed and its upstream call ended. */
  readonly release?: () => void;
  /** The body's receive deadline (src/infra/http/receive-deadline.ts), cancelled at the close. */
  readonly deadline?: Deadline;
};

/**
 * The in-flight gauge's labels of a family, one object per family label for every request (the
 * gauge's cell keeps a copy of its own): not two label objects a request, at its start and close.
 */
const familyLabels = new Map<string, { family: string }>();
export function familyLabelsOf(family: string): { readonly family: string } {
  let labels = familyLabels.get(family);
  if (labels === undefined) familyLabels.set(family, (labels = Object.freeze({ family })));
  return labels;
}

/** The end of one request (RequestEnd below). */
export function endOfRequest(ctx: Koa.Context, state: ChatState, facts: RequestFacts): RequestEnd {
  return new RequestEnd(ctx, state, facts);
}

const endKey = Symbol('polygate.requestEnd');
type Ending = ServerResponse & { [endKey]: RequestEnd };

/**
 * Calls `end.closed()` when `res` closes, through one listener shared by every response (`once`
 * wraps each listener in a new function and state object, three a request before).
 */
export function closeWith(res: ServerResponse, end: RequestEnd): void {
  (res as Ending)[endKey] = end;
  res.on('close', responseClosed);
}

function responseClosed(this: Ending): void {
  this[endKey].closed();
}

/**
 * Says when the response has closed (`closed`) and when the handler has settled (`settled`); the
 * request is recorded once, at the later of the two. A handler that has not settled soon after its
 * client left (and its upstream call ended) still gets its line, 10 s later. One object per request
 * with its methods on the class: the closures it was built of cost ~0.5 KB a request.
 */
export class RequestEnd {
  readonly #ctx: Koa.Context;
  readonly #state: ChatState;
  readonly #facts: RequestFacts;
  #closedAt: number | undefined;
  #settled = false;
  #recorded = false;
  // The late line's timer, cleared as the handler settles: it held the whole request 10 s otherwise.
  #late: NodeJS.Timeout | undefined;

  constructor(ctx: Koa.Context, state: ChatState, facts: RequestFacts) {
    this.#ctx = ctx;
    this.#state = state;
    this.#facts = facts;
  }

  /**
   * The response has closed: what the request holds until then (and until its upstream call has
   * ended) is let go, and its line is written if its handler has settled.
   */
  closed(): void {
    const f = this.#facts;
    if (f.release) afterUpstream(this.#state, f.release);
    if (f.deadline !== undefined) cancelDeadline(f.deadline);
    if (!f.ops) inFlight.dec(familyLabelsOf(f.familyLabel));
    this.#closedAt = performance.now();
    if (this.#settled) this.#record();
    else
      afterUpstream(
        this.#state,
        () => void (this.#recorded || (this.#late = setTimeout(() => this.#record(), 10_000).unref())),
      );
  }

  settled(): void {
    this.#settled = true;
    clearTimeout(this.#late);
    this.#record();
  }

  #record(): void {
    const closedAt = this.#closedAt;
    if (this.#recorded || closedAt === undefined) return;
    this.#recorded = true;
    const ctx = this.#ctx;
    const state = this.#state;
    const { started, format, familyLabel, ops, stream, log, accessLog } = this.#facts;
    const status = state.status ?? ctx.status;
    // A response that closed before its last byte went to the socket did not reach its client, whatever its handler
    // saw: a JSON answer whose client left while Koa was still writing it was logged and recorded `ok`.
    if (!ctx.res.writableFinished && (state.outcome ?? (status < 400 ? 'ok' : undefined)) === 'ok')
      state.outcome = 'client_closed';
    const labels = {
      family: familyLabel,
      inbound_format: format?.name ?? 'none',
      upstream_format: state.path?.upstream_format ?? 'none',
      provider: state.path?.provider ?? 'none',
      mode: state.path?.mode ?? 'none',
      outcome: state.outcome ?? (status < 400 ? 'ok' : `http_${status}`),
    };
    const seconds = (closedAt - started) / 1000;
    if (!ops) {
      requestsTotal.inc(labels);
      requestDuration.observe(labels, seconds);
    }
    recordUsage(state, labels, status);
    // The stream and translation metrics read their own label names of `labels` (outcome is not
    // one of them): no copy of the path's labels per metric. The translation's two observations
    // share one object, its `direction` set for each (a cell keeps a copy of its labels).
    const { decodeMs, encodeMs } = state.timings;
    if (decodeMs !== undefined || encodeMs !== undefined) {
      const steps = { ...labels, direction: 'decode' };
      if (decodeMs !== undefined) translationDuration.observe(steps, decodeMs / 1000);
      steps.direction = 'encode';
      if (encodeMs !== undefined) translationDuration.observe(steps, encodeMs / 1000);
    }
    const ttfbMs = stream?.firstByteAt === undefined ? undefined : stream.firstByteAt - started;
    if (stream && ttfbMs !== undefined) {
      timeToFirstByte.observe(labels, ttfbMs / 1000);
      streamChunksTotal.inc(labels, stream.chunks);
    }
    endRequestTrace(ctx, labels, status, ttfbMs);
    const u = state.usage;
    const withBody = state.runtime.config.log.content && ctx.is('application/json');
    const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const line = {
      request_id: state.requestId,
      method: ctx.method,
      // The route pattern, not the path: paths can carry ids and audio capability URLs. An
      // unmatched path is client text: cut short and without control characters.
      route: matched !== undefined ? String(matched) : ctx.path.slice(0, 200).replace(/[^\x20-\x7e]/g, '?'),
      key: state.key?.id,
      model: state.model,
      upstream_model: state.path?.upstreamModel,
      ...labels,
      status,
      duration_ms: ms(seconds * 1000),
      ttfb_ms: ms(ttfbMs),
      decode_ms: ms(decodeMs),
      encode_ms: ms(encodeMs),
      stream_chunks: stream?.chunks || undefined,
      // Upstream calls made (retries and fallbacks included) and the cause of the last failed one.
      upstream_attempts: state.attempts?.attempts || undefined,
      upstream_cause: state.attempts?.cause,
      tokens_in: u?.inputTokens,
      tokens_out: u?.outputTokens,
      tokens_reasoning: u?.reasoningTokens,
      tokens_cache_read: u?.cacheReadTokens,
      tokens_cache_write: u?.cacheWriteTokens,
      // How the counts were obtained, when not from the upstream's own report (src/services/usage/usage-meter.ts).
      tokens_source: state.usageSource === 'reported' ? undefined : state.usageSource,
      // Message content only when the operator asks for it (log.content, for debugging).
      request_body: withBody ? ctx.request.body : undefined,
    };
    if (withBody) log[ops ? 'debug' : 'info'](line);
    else accessLog(ops ? 'debug' : 'info', line);
  }
}

/** Milliseconds to the microsecond, for the log line. */
const ms = (v: number | undefined): number | undefined => (v === undefined ? undefined : Math.round(v * 1000) / 1000);

/**
 * Notes when the first body byte of an event stream is written and counts the writes. Watching
 * the socket writes covers translated streams and pass-through relays alike, whatever the family.
 * One shared `write` for every response, its tally on the response under a symbol: a closure per
 * response stored as its `write` kept every request's objects alive through V8's young-generation
 * GCs until the next full one (5 KB a request on every path, more on relays; bench/RESULTS.md, "Session 9").
 */
export function watchEventStream(res: ServerResponse): EventStreamWatch {
  const seen: EventStreamWatch = { chunks: 0 };
  (res as Watched)[watchKey] = { seen, isStream: undefined, headType: undefined };
  res.write = countedWrite as ServerResponse['write'];
  res.writeHead = notedWriteHead as ServerResponse['writeHead'];
  return seen;
}

const watchKey = Symbol('polygate.eventStreamWatch');
type Watched = ServerResponse & {
  [watchKey]: { seen: EventStreamWatch; isStream: boolean | undefined; headType: string | undefined };
};
const plainWrite = ServerResponse.prototype.write as (...args: unknown[]) => boolean;
const plainWriteHead = ServerResponse.prototype.writeHead as (...args: unknown[]) => ServerResponse;

/**
 * A head written whole (`writeHead(status, headers)` with no header set before, as streams and
 * relays write theirs) is not kept where `getHeader` reads: its content type is noted here.
 */
function notedWriteHead(this: Watched, ...args: unknown[]): ServerResponse {
  const headers = args[args.length - 1];
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
    const type = (headers as Record<string, unknown>)['content-type'];
    if (type !== undefined) this[watchKey].headType = String(type);
  }
  return plainWriteHead.apply(this, args);
}

function countedWrite(this: Watched, ...args: unknown[]): boolean {
  const w = this[watchKey];
  // Headers are out before the first body write, so the content type is known by then.
  w.isStream ??= String(this.getHeader('content-type') ?? w.headType ?? '').startsWith('text/event-stream');
  if (w.isStream) {
    w.seen.firstByteAt ??= performance.now();
    w.seen.chunks++;
  }
  return plainWrite.apply(this, args);
}
