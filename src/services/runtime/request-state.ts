import type { ApiKey } from '../auth/key-ring.ts';
import type { FormatModule } from '../../infra/formats/formats.ts';
import type { Usage } from '../../ir/chat-result.ts';
import type { RouteAttempts } from '../resilience/run-routes.ts';
import type { Runtime } from './runtime.ts';
import type { UsageSource } from '../usage/usage-meter.ts';
import type { Services } from './services.ts';

/** What the pipeline learns about one request, for the response headers, metrics and the log. */
export type RequestState = {
  requestId: string;
  /** The wire format the path belongs to (src/infra/http/format-of-path.ts); undefined for paths of none. */
  format: FormatModule | undefined;
  /** The runtime in force when the request arrived; kept to the end (config reload). */
  runtime: Runtime;
  /** The gateway's live services (src/services/runtime/services.ts): store, ledger, breakers, counters… */
  services: Services;
  key: ApiKey;
  model?: string;
  path?: { provider: string; upstream_format: string; mode: 'passthrough' | 'translate'; upstreamModel: string };
  /** Set by handlers that write the response themselves (streams, pass-through). */
  status?: number;
  outcome?: string;
  streaming?: boolean;
  timings: { decodeMs?: number; encodeMs?: number };
  /** The x-polygate-warnings of the route that answered (fields dropped or changed): kept in the request log (#25). */
  warnings?: readonly string[];
  /**
   * The chat handler's route loop, settled (never rejected) once its upstream calls have ended. A
   * JSON answer's upstream call outlives a client that leaves (it is billed when it ends:
   * docs/usage-and-tracing.md), so the request's record and its hold on the runtime wait for it.
   */
  upstreamCall?: Promise<void>;
};

/** The request state as the chat pipeline fills it: usage and upstream attempts go into the request's log line. */
export type ChatState = RequestState & {
  usage?: Usage;
  /** How `usage` was obtained (src/services/usage/usage-meter.ts); absent: reported. */
  usageSource?: UsageSource;
  attempts?: RouteAttempts;
};

/**
 * Runs `then` once the request's upstream call, if one is under way, has ended (at once otherwise):
 * what a request holds until its response closes (a key's concurrency slot, the runtime) it holds
 * until then too, since a JSON answer's call outlives a client that leaves.
 */
export function afterUpstream(state: RequestState, then: () => void): void {
  if (state.upstreamCall) void state.upstreamCall.then(then);
  else then();
}
