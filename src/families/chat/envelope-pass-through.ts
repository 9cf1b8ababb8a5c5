// Same-format pass-through to a cloud that wants its own envelope around the body (Claude on
// Bedrock or Vertex, src/services/providers/envelope-relay.ts). The provider sends the call:
// Bedrock's SigV4 signature covers the final bytes of the rewritten body (and Vertex needs its
// OAuth token fetched first), so the body goes out through the provider's undici client rather
// than http-proxy, which streams the client's request as it is. The answer, already in the
// client's format, goes back as it comes, its usage read off a copy as pass-through.ts does,
// both bounded by upstream.max_answer_bytes as there (docs/resilience.md, "Upstream answer size").
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ChatUpstreamCodec, SseFrame } from '../../../adapters/shared/chat-adapter.ts';
import type { RouteTimeouts } from '../../infra/config/route-policy.ts';
import { serializeFrames } from '../../infra/http/sse-writer.ts';
import type { UpstreamTracer } from '../../infra/tracing/upstream-span.ts';
import { connectionError } from '../../infra/upstream/connection-error.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { ChatProvider } from '../../services/providers/chat-provider.ts';
import type { EnvelopeRelay } from '../../services/providers/envelope-relay.ts';
import type { StreamMeter } from '../../services/usage/usage-meter.ts';
import type { PassThroughResult } from './pass-through.ts';
import { usageTap } from './relay-usage-tap.ts';

/** What a relay in a cloud's envelope is given. */
export type EnvelopePassThrough = {
  res: ServerResponse;
  provider: ChatProvider & EnvelopeRelay;
  /** The client's body as it came (the model still the client's: the provider's path names the upstream's). */
  body: Record<string, unknown>;
  /** The client's headers: the provider takes what its envelope carries (`anthropic-beta`), nothing else. */
  clientHeaders: IncomingHttpHeaders;
  model: string;
  stream: boolean;
  codec: ChatUpstreamCodec;
  responseHeaders: Record<string, string>;
  timeouts: RouteTimeouts;
  trace?: UpstreamTracer;
  streamErrorFrames: (error: GatewayError) => SseFrame[];
  observeFrames?: (frames: SseFrame[]) => void;
  /** Awaited before the answer's last bytes go out (the usage record is stored first). */
  beforeLast?: (status: number, meter: StreamMeter | undefined) => Promise<void>;
};

export async function envelopePassThrough(o: EnvelopePassThrough): Promise<PassThroughResult> {
  const { res, provider } = o;
  const abort = new AbortController();
  // A stream stops when its client leaves; a JSON answer's call runs to its end and is billed what
  // the upstream reports, as on every other route (docs/usage-and-tracing.md, "What is billed").
  const onClose = (): void => {
    if (o.stream && !res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  const failure = (e: unknown): GatewayError => failureOf(e, provider.name, o.timeouts);
  let answer;
  try {
    answer = await provider.relay(o.body, o.clientHeaders, o.model, o.stream, {
      signal: abort.signal,
      timeouts: o.timeouts,
      trace: o.trace,
    });
  } catch (e) {
    res.off('close', onClose);
    return { kind: 'failed', error: failure(e) };
  }
  const tap = usageTap(o.codec, answer.contentType, 200, o.observeFrames, undefined, {
    max: provider.maxAnswerBytes,
    provider: provider.name,
  });
  const sse = answer.contentType === 'text/event-stream';
  const headers = { ...o.responseHeaders, 'content-type': answer.contentType };
  /** A JSON body waits for its record, held up to upstream.max_answer_bytes (`heldBytes`). */
  const held: Buffer[] = [];
  let heldBytes = 0;
  let started = false;
  let committed = o.beforeLast === undefined;
  try {
    for await (const piece of answer.body) {
      const chunk =
        typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece.buffer, piece.byteOffset, piece.length);
      tap.feed(chunk);
      if (!sse && !started) {
        held.push(chunk);
        // Bounded work: past the bound the tap has stopped copying (the record is an estimate
        // either way), so the record is stored now and the answer goes on as it comes, not held whole.
        if ((heldBytes += chunk.length) <= provider.maxAnswerBytes) continue;
        committed = true;
        await o.beforeLast?.(200, tap.meter());
        started = true;
        res.writeHead(200, headers);
        for (const c of held.splice(0)) if (!res.destroyed && !res.write(c)) await drained(res);
        continue;
      }
      // A stream's headers go with its first bytes.
      if (!started) {
        started = true;
        res.writeHead(200, headers);
      }
      if (!committed && tap.finished()) {
        // The chunk that ends the stream: its record is stored before it goes out.
        committed = true;
        await o.beforeLast?.(200, tap.meter());
      }
      // A JSON answer whose client left is read to its end for the usage it reports, not written.
      if (res.destroyed && !sse) continue;
      if (res.destroyed) return { kind: 'relayed', status: 200, meter: tap.meter(), outcome: 'client_closed' };
      if (!res.write(chunk)) await drained(res);
    }
  } catch (e) {
    // The read also fails when the client's close aborted it: not a cut for the upstream's breaker.
    if (abort.signal.aborted) return { kind: 'relayed', status: 200, meter: tap.meter(), outcome: 'client_closed' };
    const error = failure(e);
    // Nothing reached the client yet: the next route may be tried.
    if (!started) return { kind: 'failed', error };
    // A stream gets the family's own error event, never a bare cut (docs/architecture.md); a JSON
    // body past the bound cannot be mended, so the client sees the cut.
    if (!sse) res.destroy();
    else if (!res.destroyed) res.end(serializeFrames(o.streamErrorFrames(error)));
    return { kind: 'relayed', status: 200, meter: tap.meter(), outcome: 'upstream_cut' };
  } finally {
    res.off('close', onClose);
  }
  tap.end();
  if (!committed) await o.beforeLast?.(200, tap.meter());
  if (sse || started) {
    if (!started) res.writeHead(200, headers);
    res.end();
  } else {
    const body = Buffer.concat(held);
    res.writeHead(200, { ...headers, 'content-length': String(body.length) });
    res.end(body);
  }
  return { kind: 'relayed', status: 200, meter: tap.meter(), outcome: res.destroyed ? 'client_closed' : 'ok' };
}

/** What a failed call is to the client: the provider's own GatewayError, or a connection failure. */
function failureOf(e: unknown, provider: string, timeouts: RouteTimeouts): GatewayError {
  return e instanceof GatewayError ? e : connectionError(e, provider, timeouts);
}

/** Resolves when the client can take more, or has gone. */
const drained = (res: ServerResponse): Promise<void> =>
  new Promise((done) => {
    const end = (): void => {
      res.off('drain', end);
      res.off('close', end);
      done();
    };
    res.once('drain', end);
    res.once('close', end);
  });
