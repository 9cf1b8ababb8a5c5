import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { ChatUpstreamCodec, SseFrame, StreamTextFilter } from '../../../adapters/shared/chat-adapter.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { serializeFrames } from '../../infra/http/sse-writer.ts';
import type { HttpChatProvider } from '../../services/providers/http-chat-provider.ts';
import { retryableStatus } from '../../infra/upstream/failure-cause.ts';
import type { RouteTimeouts } from '../../infra/config/route-policy.ts';
import { connectionError } from '../../infra/upstream/connection-error.ts';
import { errorBodyBytes, jsonOrText, textOf } from '../../infra/upstream/upstream-request.ts';
import { hookRelay, unhookRelay, type RelayProxy } from '../../infra/upstream/relay-proxy.ts';
import { relayTimers, UpstreamTimeout, type RelayTimers } from './relay-timers.ts';
import type { UpstreamSpan } from '../../infra/tracing/upstream-span.ts';
import type { StreamMeter } from '../../services/usage/usage-meter.ts';
import { usageTap } from './relay-usage-tap.ts';
import { connectionTokens, dropped, errorHeader, upstreamHeaders } from './relay-headers.ts';

/**
 * Same-format pass-through (docs/architecture.md): the client's body is relayed with only the model name and
 * credentials rewritten, and the upstream's bytes go back as they arrive, so fields polygate does
 * not know still reach both ends. Usage is read off a copy of the response on the way back.
 */

/**
 * Sends the relayed body, whole (head and body in one write: test/resilience/relay-one-write.test.ts),
 * unless the upstream request was destroyed meanwhile (a timeout, the client gone). Called in the
 * loop's check phase, as undici's writes are on the translated path: the requests relayed in one
 * poll phase then reach the upstream together, after it, rather than one by one between the
 * client requests' parsing (issue #28: the relay's upstream `writev` cost twice undici's per request).
 */
function endWith(to: ClientRequest, payload: Buffer): void {
  if (!to.destroyed) to.end(payload);
}

export type PassThroughResult =
  /** `meter`: what the upstream reported and streamed (undefined for error answers, which are not billed). */
  | { kind: 'relayed'; status: number; meter?: StreamMeter; outcome: 'ok' | 'client_closed' | 'upstream_cut' }
  /** The upstream failed before anything was sent to the client: the next route may be tried. */
  | { kind: 'failed'; error: GatewayError };

export async function passThrough(opts: {
  proxy: RelayProxy;
  req: IncomingMessage;
  res: ServerResponse;
  provider: HttpChatProvider;
  codec: ChatUpstreamCodec;
  path: string;
  body: Record<string, unknown>;
  responseHeaders: Record<string, string>;
  /**
   * When true (another attempt follows), an upstream 408, 429 or 5xx is not relayed but reported,
   * so the caller can retry or fall back.
   */
  canFallBack: boolean;
  /** Client credential headers of every format the app serves: none may reach an upstream. */
  credentialHeaders: ReadonlySet<string>;
  /** Connect, first-byte (response headers) and idle (between body chunks) limits. */
  timeouts: RouteTimeouts;
  /** The upstream call's span (traced requests): its traceparent replaces the client's. */
  trace?: UpstreamSpan;
  /** The client format's in-stream error event, for an upstream that fails mid-stream. */
  streamErrorFrames: (error: GatewayError) => SseFrame[];
  /** Each SSE frame of a 2xx stream as it is relayed (a Responses session reads the final response off it). */
  observeFrames?: (frames: SseFrame[]) => void;
  /** Rewrites a 2xx stream on its way to the client (`RelayedBody` in adapters/shared/chat-adapter.ts). */
  clientStream?: () => StreamTextFilter;
  /** A 2xx JSON answer, parsed (a stored Responses relay keeps it, issue #29). */
  observeJson?: (body: unknown) => void;
  /**
   * Awaited before the answer's last bytes go out: the chunk that ends a stream (its finish), a
   * JSON body (held until then), an error body. The usage record is stored first; `meter` is what
   * the upstream reported and streamed (none for an error).
   */
  beforeLast?: (status: number, meter: StreamMeter | undefined) => Promise<void>;
}): Promise<PassThroughResult> {
  const { req, res, provider, codec } = opts;
  // A credential fetched per call (Azure's Entra ID token) before anything is sent.
  let providerHeaders: Record<string, string>;
  try {
    providerHeaders = await provider.authorizedHeaders();
  } catch (e) {
    const error =
      e instanceof GatewayError ? e : new GatewayError('upstream', `provider '${provider.name}' has no credential`);
    opts.trace?.end(undefined, error);
    return { kind: 'failed', error };
  }
  const payload = Buffer.from(JSON.stringify(opts.body));
  const upstream = upstreamHeaders(req.headers, opts.credentialHeaders, payload.length, providerHeaders, opts.trace);
  return new Promise((settle) => {
    // Every way a relay ends goes through here: its hooks leave the client's request (relay-proxy.ts).
    const resolve = (r: PassThroughResult): void => {
      unhookRelay(req);
      settle(r);
    };
    const timers = relayTimers(provider.name, opts.timeouts);
    const onResponse = (proxyRes: IncomingMessage): void => {
      timers.responded(proxyRes);
      opts.trace?.end(proxyRes.statusCode);
      const status = proxyRes.statusCode ?? 502;
      if (status === 401 || status === 403) {
        // The upstream refused polygate's key, not the client's: never relayed as the client's 401.
        void readErrorText(proxyRes, timers).then(() => {
          timers.clear();
          resolve({ kind: 'failed', error: provider.rejectedCredentials(status) });
        });
        return;
      }
      if (opts.canFallBack && retryableStatus(status)) {
        // Nothing went to the client yet: read the upstream's error (its Retry-After included)
        // in its own format, so the next attempt knows how long to wait.
        void readErrorText(proxyRes, timers).then((text) => {
          timers.clear();
          resolve({
            kind: 'failed',
            error: codec.decodeError(
              status,
              jsonOrText(provider.scrub(text)),
              proxyRes.headers as Record<string, string | string[]>,
            ),
          });
        });
        return;
      }
      const headers: Record<string, string | string[]> = { ...opts.responseHeaders };
      const upstreamNamed = connectionTokens(proxyRes.headers.connection);
      const failed = status >= 400;
      for (const k in proxyRes.headers) {
        const v = proxyRes.headers[k];
        if (v === undefined || dropped(k, upstreamNamed) || (failed && !errorHeader(k))) continue;
        const scrubbed = typeof v === 'string' ? provider.scrub(v) : v.map((x) => provider.scrub(x));
        // polygate's own headers win: its x-request-id is the one its log and traces know; the
        // upstream's id stays readable beside it for the vendor's support.
        if (k in opts.responseHeaders) {
          if (k === 'x-request-id') headers['x-upstream-request-id'] = scrubbed;
          continue;
        }
        headers[k] = scrubbed;
      }
      const encoded =
        proxyRes.headers['content-encoding'] !== undefined && proxyRes.headers['content-encoding'] !== 'identity';
      if (status >= 400 && !encoded) {
        // An error body may echo what the upstream was sent (a misconfigured or hostile upstream
        // quoting the provider key): relayed with every configured secret scrubbed.
        void readErrorText(proxyRes, timers).then(async (text) => {
          timers.clear();
          await opts.beforeLast?.(status, undefined);
          const body = Buffer.from(provider.scrub(text));
          res.writeHead(status, { ...headers, 'content-length': String(body.length) });
          res.end(body);
          resolve({ kind: 'relayed', status, outcome: 'ok' });
        });
        return;
      }
      res.writeHead(status, headers);
      const contentType = String(proxyRes.headers['content-type'] ?? '');
      const eventStream = contentType.includes('text/event-stream');
      const tap = usageTap(codec, contentType, status, opts.observeFrames, opts.observeJson, {
        max: provider.maxAnswerBytes,
        provider: provider.name,
      });
      const filter = opts.clientStream && eventStream ? opts.clientStream() : undefined;
      const text = filter ? new TextDecoder() : undefined;
      // Relayed by hand rather than piped: a pipe adds and removes eight listeners per response on
      // both streams, while the close and end handlers below already do what its cleanup does.
      const resume = (): void => {
        proxyRes.resume();
      };
      const beforeLast = opts.beforeLast;
      /** A JSON body waits whole for its record (`beforeLast`); a stream only its last chunk. */
      const held: Buffer[] | undefined = beforeLast && !eventStream ? [] : undefined;
      // The client has the answer's status and headers at once, as without the hold: only the body
      // waits. Unless the body came whole in the same turn (a short answer, nearly always): then
      // headers and body leave in one write once the record is stored, not two (issue #28).
      if (held)
        setImmediate(() => {
          if (!proxyRes.complete && !res.writableEnded && !res.destroyed) res.flushHeaders();
        });
      let committed = beforeLast === undefined;
      /** The last chunk, written once its record is stored; 'end' can come first and must wait for it. */
      let holding: Promise<void> | undefined;
      /** What the client gets of an upstream chunk: the bytes as they came, or the stream filter's text (in order). */
      const toClient = (chunk: Buffer): Buffer | string =>
        filter && text ? filter.push(text.decode(chunk, { stream: true })) : chunk;
      const write = (out: Buffer | string): void => {
        if (out.length > 0 && !res.write(out)) {
          proxyRes.pause();
          res.once('drain', resume);
        }
      };
      /**
       * Stores the record (`beforeLast`, the upstream paused meanwhile), then writes `outs`: the
       * held answer, or a stream's last chunk. One 'drain' listener for all of them if the socket
       * fills (a listener per write past the first full one piled up thousands for a held answer).
       */
      const commitThen = (outs: (Buffer | string)[]): void => {
        committed = true;
        proxyRes.pause();
        holding = beforeLast!(status, tap.meter()).then(() => {
          if (res.destroyed) return;
          for (const out of outs) if (out.length > 0) res.write(out);
          if (res.writableNeedDrain) res.once('drain', resume);
          else resume();
        });
      };
      /** Bytes of the JSON answer held so far: past upstream.max_answer_bytes it is no longer held. */
      let heldBytes = 0;
      proxyRes.on('data', (chunk: Buffer) => {
        timers.chunk();
        tap.feed(chunk);
        // A JSON answer whose client left is read to its end for the usage it reports, not written.
        if (res.destroyed) return;
        if (held && !committed) {
          held.push(chunk);
          heldBytes += chunk.length;
          // Bounded work: past the bound the tap has stopped copying (the record is an estimate either
          // way), so the record is stored now and the answer goes on as it comes, not held whole.
          if (heldBytes > provider.maxAnswerBytes) commitThen(held.splice(0));
        } else if (!committed && beforeLast && tap.finished()) {
          // The chunk that ends the stream: its record is stored before it goes out.
          commitThen([toClient(chunk)]);
        } else write(toClient(chunk));
      });
      let settled = false;
      const finish = (outcome: 'ok' | 'client_closed' | 'upstream_cut'): void => {
        if (settled) return;
        settled = true;
        timers.clear();
        resolve({ kind: 'relayed', status, meter: tap.meter(), outcome });
      };
      // The client left. A stream is cancelled and billed what it reported and streamed so far; a
      // JSON answer, which the upstream generates (and bills) whole anyway, is read to its end,
      // bounded by the idle timeout, and billed what it reports (docs/usage-and-tracing.md).
      let clientLeft = false;
      const onClientClose = (): void => {
        if (proxyRes.complete) finish('ok');
        else if (eventStream) {
          proxyRes.destroy();
          finish('client_closed');
        } else {
          clientLeft = true;
          // Paused for a 'drain' that will not come.
          proxyRes.resume();
        }
      };
      // A client gone before the answer came has closed already: no 'close' is coming.
      if (res.destroyed) onClientClose();
      else res.on('close', onClientClose);
      proxyRes.on('end', () => {
        if (!proxyRes.complete) return;
        // A stream whose last event has no terminator of its own (Gemini's) finishes, with its usage, here.
        tap.end();
        const rest = filter && text ? filter.push(text.decode()) + filter.end() : '';
        const ending = (): void => {
          if (!res.destroyed) res.end(held ? Buffer.concat(held) : rest.length > 0 ? rest : undefined);
          finish(clientLeft ? 'client_closed' : 'ok');
        };
        if (holding) void holding.then(ending);
        else if (committed || !beforeLast) ending();
        else {
          committed = true;
          void beforeLast(status, tap.meter()).then(ending);
        }
      });
      // The upstream went away mid-body. A stream gets the family's own error event, never a
      // bare cut (docs/architecture.md); a JSON body cannot be mended, so the client sees the cut.
      proxyRes.on('close', () => {
        timers.clear();
        if (proxyRes.complete || res.writableEnded) return;
        if (eventStream && !res.destroyed) {
          const err =
            timers.fired() ??
            new GatewayError('upstream', `provider '${provider.name}' closed the stream before it ended`);
          res.end(serializeFrames(opts.streamErrorFrames(err)));
        } else res.destroy();
        finish('upstream_cut');
      });
    };
    let responded = false;
    hookRelay(req, {
      request: (proxyReq) => {
        timers.watchRequest(proxyReq);
        // The body, from the buffer the relay holds (http-proxy's own `buffer` pipes nothing: relay-proxy.ts).
        setImmediate(endWith, proxyReq, payload);
        // http-proxy cancels the upstream request without calling back when the client's socket
        // resets ('econnreset'): the relay ends then all the same, never left pending (the
        // request's concurrency slot and record wait for it: src/services/runtime/request-state.ts).
        // `on`, not `once`: a request closes once, and `once` wraps each listener in two more objects.
        proxyReq.on('close', () => {
          if (responded) return;
          timers.clear();
          resolve({
            kind: 'failed',
            error: timers.fired() ?? new GatewayError('internal', 'request aborted', { status: 499 }),
          });
        });
      },
      response: (proxyRes) => {
        responded = true;
        onResponse(proxyRes);
      },
    });
    // http-proxy copies `req.headers` into the upstream request within `web`, and reads them
    // nowhere else: the client's own headers are back on `req` as soon as it returns.
    const client = req.headers;
    req.headers = upstream;
    try {
      opts.proxy.web(req, res, provider.relayTarget(opts.path), provider.relayAgent, (err) => {
        timers.clear();
        opts.trace?.end(undefined, err);
        resolve({
          kind: 'failed',
          error: err instanceof UpstreamTimeout ? err.error : connectionError(err, provider.name, opts.timeouts),
        });
      });
    } finally {
      req.headers = client;
    }
  });
}

/** An upstream error body as text; at most `errorBodyBytes` is kept. `timers.chunk`: each chunk's arrival (the idle timer). */
async function readErrorText(res: IncomingMessage, timers: Pick<RelayTimers, 'chunk'>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const c of res) {
      timers.chunk();
      if (size < errorBodyBytes) chunks.push(c as Buffer);
      size += (c as Buffer).length;
    }
  } catch {
    // cut or timed out while reading: decode what arrived
  }
  return textOf(chunks, Math.min(size, errorBodyBytes));
}
