// The one route loop of polygate: chat requests (src/families/chat/chat-handler.ts), speech
// (src/families/speech/audio-routes-plan.ts), music task submissions and the lyrics model
// (src/families/tune/submit-on-routes.ts, lyrics-writer.ts). Each route in the order the router planned, each
// retried on its own policy, each behind its breaker, the failure classified by
// src/infra/upstream/failure-cause.ts. Retries and fallbacks happen only while nothing has reached the
// client: `serve` throws only in that case; once it has answered (or started a stream) it
// returns, and whatever happens later travels inside the response.
import { GatewayError } from '../../ir/gateway-error.ts';
import { fallbacksTotal, retriesTotal, upstreamAttempts } from '../../infra/metrics/registry.ts';
import { toGatewayError } from '../../infra/errors/to-gateway-error.ts';
import type { Route } from '../routing/model-router.ts';
import { backoffDelay, sleep } from './backoff.ts';
import type { BreakerBoard } from './breaker-board.ts';
import { breaksCircuit, failureCauseOf, type FailureCause } from '../../infra/upstream/failure-cause.ts';

/** What one route did: nothing (no provider for it here), or answered; `upstreamFailed` when the answer was an upstream failure all the same (relayed 5xx, cut or timed-out stream). */
export type ServeResult = { served: false } | { served: true; upstreamFailed: boolean };

export type RouteAttempts = {
  /** Upstream calls made, retries and fallbacks included. */
  attempts: number;
  /** Cause of the last failed call, for the request's log line. */
  cause?: string;
};

export type RunRoutesOptions = {
  /** The metrics' family label (the format module's `metricLabel`, adapters/shared/format-module.ts). */
  family: string;
  model: string;
  routes: Route[];
  /** The gateway's breakers (src/services/runtime/services.ts). */
  breakers: BreakerBoard;
  /**
   * The client's connection: aborted when it goes away, which ends retries and backoff waits. A
   * function is called only when a failure needs it (most requests never build one).
   */
  signal: AbortSignal | (() => AbortSignal);
  /** Filled in as the loop goes, for the request's log line. */
  report?: RouteAttempts;
  /**
   * Serves the request through one route. `final` is true for the last call this request will
   * make, so an upstream error can be relayed to the client as it came.
   */
  serve: (route: Route, final: boolean) => Promise<ServeResult>;
  /** The error when no route had a provider to serve it. */
  noRoute: () => GatewayError;
  /** A span per attempt (src/services/tracing/request-trace.ts), when the request is traced. */
  trace?: { attempt(route: Route, n: number): (error?: GatewayError) => void };
};

export async function runRoutes(o: RunRoutesOptions): Promise<void> {
  const report = o.report ?? { attempts: 0 };
  let lastError: GatewayError | undefined;
  let skippedFor: number | undefined;
  try {
    for (let i = 0; i < o.routes.length; i++) {
      const route = o.routes[i];
      const breaker = o.breakers.of(route.provider, route.breakerModel);
      const hasNextRoute = i < o.routes.length - 1;
      let cause: FailureCause | 'breaker_open' | 'unavailable' | undefined;
      for (let attempt = 1; ; attempt++) {
        const permit = breaker.acquire(route.breaker);
        if (!permit) {
          cause = 'breaker_open';
          skippedFor = Math.min(skippedFor ?? Infinity, breaker.retryInMs);
          break;
        }
        report.attempts++;
        const final = !hasNextRoute && attempt > route.retries.max_retries;
        let err: GatewayError;
        let own = false;
        const endSpan = o.trace?.attempt(route, attempt);
        try {
          const r = await o.serve(route, final);
          endSpan?.();
          if (!r.served) {
            permit.release();
            report.attempts--;
            cause = 'unavailable';
            break;
          }
          if (r.upstreamFailed) permit.failure();
          else permit.success();
          report.cause = undefined;
          upstreamAttempts.observe({ family: o.family, outcome: 'ok' }, report.attempts);
          return;
        } catch (e) {
          err = toGatewayError(e);
          // Providers report every upstream failure as a GatewayError; anything else thrown is
          // polygate's own fault (a bug, a stack overflow), which no other attempt would mend and
          // which must not count against the upstream's breaker.
          own = !(e instanceof GatewayError);
          endSpan?.(err);
        }
        const signal = typeof o.signal === 'function' ? o.signal() : o.signal;
        const why = signal.aborted || own ? undefined : failureCauseOf(err);
        if (!why) {
          // The request's own fault (or the client left): no other attempt would do better.
          permit.release();
          throw err;
        }
        if (breaksCircuit(why)) permit.failure();
        else permit.release();
        lastError = err;
        cause = why;
        report.cause = why;
        if (attempt > route.retries.max_retries) break;
        const delay = backoffDelay(attempt, route.retries, err.retryAfter);
        if (delay === undefined) break;
        retriesTotal.inc({ provider: route.provider, cause: why });
        await sleep(delay, signal);
        if (signal.aborted) throw err;
      }
      if (hasNextRoute) fallbacksTotal.inc({ provider: route.provider, cause });
    }
  } catch (e) {
    upstreamAttempts.observe({ family: o.family, outcome: report.cause ?? toGatewayError(e).kind }, report.attempts);
    throw e;
  }
  if (lastError) {
    upstreamAttempts.observe({ family: o.family, outcome: report.cause ?? lastError.kind }, report.attempts);
    throw lastError;
  }
  if (skippedFor !== undefined) {
    report.cause = 'breaker_open';
    upstreamAttempts.observe({ family: o.family, outcome: 'breaker_open' }, report.attempts);
    throw new GatewayError(
      'unavailable',
      `model '${o.model}' is unavailable: the circuit breaker of every route is open after repeated upstream failures`,
      {
        retryAfter: Math.max(1, Math.ceil(skippedFor / 1000)),
      },
    );
  }
  throw o.noRoute();
}
