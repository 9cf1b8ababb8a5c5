// Finding: polygate's own exceptions (a stack overflow in a decoder, a JSON.stringify failure)
// were classified as upstream failures: retried, counted against the breaker (which then failed
// every tenant with 503) and, on an HTTP route, answered 502 "provider could not be reached".
import t from 'tap';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { BreakerBoard } from '../../src/services/resilience/breaker-board.ts';
import { defaultBreaker, defaultRetries } from '../../src/infra/config/upstream-defaults.ts';
import { runRoutes, type RouteAttempts } from '../../src/services/resilience/run-routes.ts';
import type { Route } from '../../src/services/routing/model-router.ts';

const route = (provider: string): Route => ({
  provider,
  model: 'm',
  breakerModel: 'm',
  weight: 1,
  timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
  retries: { ...defaultRetries, max_retries: 2, base_delay_ms: 1, max_delay_ms: 1 },
  breaker: defaultBreaker,
});

const breakers = new BreakerBoard();

async function run(provider: string, thrown: () => unknown): Promise<{ error: GatewayError; report: RouteAttempts }> {
  const report: RouteAttempts = { attempts: 0 };
  const error = await runRoutes({
    family: 'messages',
    model: 'x',
    routes: [route(provider), route(`${provider}-fallback`)],
    breakers,
    signal: new AbortController().signal,
    report,
    serve: async () => {
      throw thrown();
    },
    noRoute: () => new GatewayError('unavailable', 'none'),
  }).then(
    () => undefined,
    (e: unknown) => e as GatewayError,
  );
  if (!error) throw new Error('runRoutes resolved');
  return { error, report };
}

t.test('an exception of polygate itself: one attempt, no retry, no fallback, breaker untouched, a 500', async (t) => {
  for (let i = 0; i < 8; i++) {
    const { error, report } = await run('own-fault', () => new RangeError('Maximum call stack size exceeded'));
    t.equal(report.attempts, 1, 'neither retried nor sent to the fallback');
    t.equal(error.status, 500);
    t.not(error.status, 502);
  }
  t.equal(breakers.of('own-fault', 'm').state, 'closed', 'the breaker did not count them');
});

t.test('the same number of upstream failures does open it (the check above can fail)', async (t) => {
  const { report } = await run('upstream-fault', () => new GatewayError('upstream', 'bad gateway', { status: 502 }));
  t.equal(report.attempts, 6, 'an upstream failure is retried (twice) on each route');
  await run('upstream-fault', () => new GatewayError('upstream', 'bad gateway', { status: 502 }));
  t.equal(breakers.of('upstream-fault', 'm').state, 'open');
});
