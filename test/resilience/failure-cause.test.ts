// The one failure classifier (src/infra/upstream/failure-cause.ts, src/infra/upstream/connection-error.ts)
// that translated calls, relays, speech and music tasks share: each upstream status or transport
// error, its cause, whether another attempt may be made and whether it counts against a breaker.
import t from 'tap';
import { errors as undiciErrors } from 'undici';
import { GatewayError, kindOfStatus } from '../../src/ir/gateway-error.ts';
import { backoffDelay } from '../../src/services/resilience/backoff.ts';
import { breaksCircuit, failureCauseOf, isRetryable, retryableStatus } from '../../src/infra/upstream/failure-cause.ts';
import { defaultRetries } from '../../src/infra/config/upstream-defaults.ts';
import { connectionError } from '../../src/infra/upstream/connection-error.ts';

const statuses: Array<[number, string | undefined]> = [
  [400, undefined],
  [401, undefined],
  [403, undefined],
  [404, undefined],
  [408, 'timeout'],
  [409, undefined],
  [413, undefined],
  [422, undefined],
  [429, 'rate_limited'],
  [499, undefined],
  [500, 'server_error'],
  [501, undefined],
  [502, 'server_error'],
  [503, 'server_error'],
  // A 504 decodes to a timeout (src/ir/gateway-error.ts kindOfStatus): retried as one.
  [504, 'timeout'],
  [529, 'server_error'],
];

t.test('upstream statuses: cause, retryable, breaker', async (t) => {
  for (const [status, cause] of statuses) {
    const err = new GatewayError(kindOfStatus(status), `HTTP ${status}`, { status });
    t.equal(failureCauseOf(err), cause, `${status} → ${cause ?? 'not retryable'}`);
    t.equal(isRetryable(err), cause !== undefined, `${status} retryable`);
    t.equal(retryableStatus(status), cause !== undefined, `${status}: the relay's rule is the same`);
    if (cause)
      t.equal(
        breaksCircuit(cause as Parameters<typeof breaksCircuit>[0]),
        cause !== 'rate_limited',
        `${status} counts against the breaker`,
      );
  }
});

t.test('transport errors: each timeout named, refused connections marked', async (t) => {
  const timeouts = { connectMs: 11, firstByteMs: 22, idleMs: 33 };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  const rows: Array<[string, unknown, string | undefined, RegExp]> = [
    [
      'connect timeout',
      new undiciErrors.ConnectTimeoutError(),
      'timeout',
      /did not accept the connection within 11 ms \(connect timeout\)/,
    ],
    [
      'first-byte timeout',
      new undiciErrors.HeadersTimeoutError(),
      'timeout',
      /did not start answering within 22 ms \(first-byte timeout\)/,
    ],
    ['idle timeout', new undiciErrors.BodyTimeoutError(), 'timeout', /sent nothing more within 33 ms \(idle timeout\)/],
    ['refused', refused, 'connection', /could not be reached \(ECONNREFUSED\)/],
    [
      'reset (cause)',
      Object.assign(new Error('other side closed'), { cause: { code: 'ECONNRESET' } }),
      'connection',
      /\(ECONNRESET\)/,
    ],
    ['client abort', Object.assign(new Error('aborted'), { name: 'AbortError' }), undefined, /request aborted/],
  ];
  for (const [name, thrown, cause, message] of rows) {
    const err = connectionError(thrown, 'up', timeouts);
    t.equal(failureCauseOf(err), cause, `${name} → ${cause ?? 'not retryable'}`);
    t.match(err.message, message, `${name}: message`);
    t.notMatch(err.message, /127\.0\.0\.1/, `${name}: no address in the message`);
  }
  t.equal(connectionError(refused, 'up').status, 502, 'a refused connection answers 502');
});

t.test('Retry-After is waited for up to the cap, never less; past it the route is given up', async (t) => {
  const policy = { ...defaultRetries, max_retry_after_ms: 2000 };
  t.equal(
    backoffDelay(1, policy, 2, () => 0),
    2000,
    'at the cap: waited',
  );
  t.equal(
    backoffDelay(1, policy, 3, () => 0),
    undefined,
    'over the cap: next route',
  );
  t.ok(backoffDelay(1, policy, 1, () => 1)! >= 1000, 'never less than asked');
  const plain = backoffDelay(2, policy, undefined, () => 1)!;
  t.ok(plain <= policy.base_delay_ms * 2 && plain >= policy.base_delay_ms, 'without Retry-After: exponential backoff');
});
