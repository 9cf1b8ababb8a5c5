// A request the sampler left out (docs/usage-and-tracing.md): no span and no call into the SDK,
// only the traceparent an upstream call carries, with the sampled flag off. Most requests take
// this path at a low tracing.sample_ratio, so it must cost next to nothing: ids are drawn only
// when an upstream is called, from Math.random (as the SDK's own RandomIdGenerator does).
import type { Attributes } from '@opentelemetry/api';
import type { ChatRequest } from '../../ir/chat-request.ts';
import type { GatewayError } from '../../ir/gateway-error.ts';
import type { Route } from '../routing/model-router.ts';
import type { UpstreamSpan, UpstreamTracer } from '../../infra/tracing/upstream-span.ts';

const idBytes = Buffer.allocUnsafe(16);

/** `bytes` random bytes (a multiple of 4) as lowercase hex, never all zeros (an invalid id). */
export function randomHexId(bytes: 8 | 16): string {
  for (let i = 0; i < bytes; i += 4) idBytes.writeUInt32BE((Math.random() * 0x1_0000_0000) >>> 0, i);
  if (idBytes.readUInt32BE(0) === 0) idBytes.writeUInt32BE(1, 0);
  return idBytes.toString('hex', 0, bytes);
}

const noop = (): void => {};
const endUpstream = (): void => {};

export class UnsampledTrace implements UpstreamTracer {
  /** The caller's trace id, or undefined: a new one is drawn when an upstream is called. */
  #traceId: string | undefined;
  readonly #tracestate: string | undefined;

  constructor(traceId: string | undefined, tracestate: string | undefined) {
    this.#traceId = traceId;
    this.#tracestate = tracestate;
  }

  step(_name: string, _startedAt: number, _attributes?: Attributes): void {}
  decoded(_request: ChatRequest, _startedAt: number): void {}
  warnings(_list: string[]): void {}
  attempt(_route: Route, _n: number): (error?: GatewayError) => void {
    return noop;
  }

  upstream(): UpstreamSpan {
    this.#traceId ??= randomHexId(16);
    const headers: Record<string, string> = { traceparent: `00-${this.#traceId}-${randomHexId(8)}-00` };
    if (this.#tracestate) headers.tracestate = this.#tracestate;
    return { headers, end: endUpstream };
  }
}
