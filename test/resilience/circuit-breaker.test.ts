// Circuit breaking per provider and upstream model: the breaker on its own (a clock under test
// control), then through a running polygate: opening on a run of failures, skipping the route
// while open, a half-open probe after the cool-down, closing on its success; state in metrics.
import t from 'tap';
import { CircuitBreaker, type BreakerState } from '../../src/services/resilience/circuit-breaker.ts';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { metricValue, waitUntil } from './resilience-helpers.ts';

const cfg = { consecutive_failures: 3, failure_ratio: 0.5, min_calls: 6, window_ms: 10_000, cooldown_ms: 1000 };

t.test('the breaker: run of failures, failure ratio, half-open probe', async (t) => {
  let now = 0;
  const seen: BreakerState[] = [];
  const b = new CircuitBreaker(
    (s) => seen.push(s),
    () => now,
  );
  for (let i = 0; i < 3; i++) b.acquire(cfg)!.failure();
  t.equal(b.state, 'open', 'three failures in a row open it');
  t.equal(b.acquire(cfg), undefined, 'open: calls are skipped');
  t.equal(b.retryInMs, 1000);
  now += 1000;
  const probe = b.acquire(cfg);
  t.ok(probe, 'after the cool-down one probe goes through');
  t.equal(b.state, 'half_open');
  t.equal(b.acquire(cfg), undefined, 'only one probe at a time');
  probe!.failure();
  t.equal(b.state, 'open', 'a failed probe opens it again');
  now += 1000;
  b.acquire(cfg)!.release();
  t.equal(b.state, 'half_open', 'a probe that told nothing (client left) leaves it half-open');
  b.acquire(cfg)!.success();
  t.equal(b.state, 'closed', 'a successful probe closes it');
  t.same(seen, ['open', 'half_open', 'open', 'half_open', 'closed']);

  // Ratio: alternate successes and failures (never 3 in a row) until 6 calls, half failed.
  const outcomes = [true, false, true, false, true, false];
  for (const ok of outcomes) {
    const p = b.acquire(cfg)!;
    if (ok) p.success();
    else p.failure();
  }
  t.equal(b.state, 'open', '3 of 6 calls failed within the window');
  now += 1000;
  b.acquire(cfg)!.success();
  for (const ok of [true, false, true, false, true, false]) {
    now += 3000; // spread over more than the window: old calls age out
    const p = b.acquire(cfg)!;
    if (ok) p.success();
    else p.failure();
  }
  t.equal(b.state, 'closed', 'failures spread beyond the window do not add up');
});

t.test('through polygate: opens, skips, probes, recovers', async (t) => {
  const fault = await startFaultUpstream();
  const gw = await startInProcessGateway(
    testConfig({
      providers: { flaky: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' } },
      models: {
        guarded: {
          breaker: { consecutive_failures: 2, cooldown_ms: 2000 },
          routes: [
            { provider: 'flaky', model: 'up-g' },
            { provider: 'echo', model: 'echo-1' },
          ],
        },
        lonely: {
          breaker: { consecutive_failures: 1, cooldown_ms: 60_000 },
          routes: [{ provider: 'flaky', model: 'up-lonely' }],
        },
      },
    }),
  );
  t.teardown(async () => {
    await gw.stop();
    await fault.close();
  });
  const ask = async (model: string): Promise<Response> => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.clone().arrayBuffer();
    return res;
  };
  const routeState = (): Promise<number> =>
    metricValue(gw, 'polygate_circuit_breaker_route_state', { provider: 'flaky', upstream_model: 'up-g' });

  fault.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
  t.equal((await ask('guarded')).headers.get('x-polygate-route'), 'echo/echo-1');
  t.equal((await ask('guarded')).headers.get('x-polygate-route'), 'echo/echo-1');
  t.equal(await routeState(), 2, 'two failures in a row: open');
  t.equal(
    await metricValue(gw, 'polygate_circuit_breaker_state', { provider: 'flaky' }),
    2,
    'the provider shows its worst route',
  );
  await gw.matchLog(t, /"upstream_model":"up-g".*circuit breaker opened/, 'the transition is logged');

  t.equal((await ask('guarded')).headers.get('x-polygate-route'), 'echo/echo-1');
  t.equal(fault.requests.length, 2, 'while open, the route is skipped: the upstream is not called');
  t.ok((await metricValue(gw, 'polygate_fallbacks_total', { provider: 'flaky', cause: 'breaker_open' })) >= 1);

  // After the cool-down the next request probes the upstream, which has recovered.
  await waitUntil('the half-open probe to reach the upstream and succeed', async () =>
    (await ask('guarded')).headers.get('x-polygate-route') === 'flaky/up-g' ? true : undefined,
  );
  t.equal(await routeState(), 0, 'closed again');
  t.equal((await ask('guarded')).headers.get('x-polygate-route'), 'flaky/up-g', 'and traffic flows to it');

  fault.reset();
  fault.script({ kind: 'status', status: 500 });
  t.equal((await ask('lonely')).status, 500, 'the failure itself is answered as it came');
  const skipped = await ask('lonely');
  t.equal(skipped.status, 503, 'every route open: answered at once, 503');
  t.ok(Number(skipped.headers.get('retry-after')) > 0, 'with the time until the next probe');
  t.match(((await skipped.json()) as { error: { message: string } }).error.message, /circuit breaker/);
  t.equal(fault.requests.length, 1, 'the open route was not called');
});
