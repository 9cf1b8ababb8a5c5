// What the config says about resilience, as the router hands it to the request path: per-route
// timeouts and retries over `upstream.*`, per-model breaker settings; and what the loader refuses.
import t from 'tap';
import { stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/infra/config/load-config.ts';
import { ModelRouter } from '../../src/services/routing/model-router.ts';

const file = (extra: Record<string, unknown>): string =>
  stringify({
    keys: [{ id: 'k', secret: 'sk-policy-test-1', workspace: 'w' }],
    providers: { echo: { type: 'echo' }, other: { type: 'echo' } },
    models: {
      m: {
        breaker: { cooldown_ms: 5000 },
        routes: [
          { provider: 'echo', model: 'a', timeouts: { first_byte_ms: 1500 }, retries: { max_retries: 3 } },
          { provider: 'other', model: 'b' },
        ],
      },
    },
    ...extra,
  });

t.test('route overrides sit over upstream.* and the defaults', async (t) => {
  const { config } = parseConfig(
    file({ upstream: { idle_timeout_ms: 9000, retries: { base_delay_ms: 50 } } }),
    'p.yaml',
    {},
  );
  const [a, b] = new ModelRouter(config.models, new Map(), config.upstream).plan('m');
  t.same(a.timeouts, { connectMs: 10_000, firstByteMs: 1500, idleMs: 9000 });
  t.same(a.retries, { max_retries: 3, base_delay_ms: 50, max_delay_ms: 5000, max_retry_after_ms: 10_000 });
  t.same(b.retries.max_retries, 0, 'no same-route retry unless asked');
  t.equal(a.breaker.cooldown_ms, 5000, 'model breaker settings');
  t.equal(a.breaker.consecutive_failures, 5, 'over the defaults');
  t.equal(config.shutdown_deadline_ms, 30_000);
  t.same(config.reload, { watch: true, debounce_ms: 250 });
  t.equal(config.tune.task_lease_ms, 120_000);
});

t.test('bad resilience settings are refused by path', async (t) => {
  const bad = file({
    upstream: { breaker: { failure_ratio: 2 } },
    shutdown_deadline_ms: -1,
    storage: { driver: 'redis' },
  });
  const err = t.throws(() => parseConfig(bad, 'bad.yaml', {})) as unknown as ConfigError;
  t.match(err.problems.join('\n'), /\/upstream\/breaker\/failure_ratio/);
  t.match(err.problems.join('\n'), /\/shutdown_deadline_ms/);
  const noUrl = t.throws(() =>
    parseConfig(file({ storage: { driver: 'redis' } }), 'r.yaml', {}),
  ) as unknown as ConfigError;
  t.match(noUrl.problems.join('\n'), /\/storage\/url: required/);
  const typo = t.throws(() =>
    parseConfig(file({}).replace('first_byte_ms', 'first_bite_ms'), 't.yaml', {}),
  ) as unknown as ConfigError;
  t.match(typo.problems.join('\n'), /timeouts\/first_bite_ms.*unknown field/);
});
