import { createHmac } from 'node:crypto';
import t from 'tap';
import { callbackHeaders, retryDelay, signCallback } from '../../src/families/tune/callback-deliverer.ts';
import type { CallbackRecord } from '../../src/families/tune/task-store.ts';

const rec: CallbackRecord = {
  deliveryId: 'd-1',
  taskId: 't-1',
  url: 'https://h.example/x',
  body: '{"task_id":"t-1"}',
  attempts: 2,
  state: 'pending',
  createdAt: 0,
};

t.test('the signature is v1= hex HMAC-SHA256 of "<timestamp>.<body>"', async (t) => {
  const want = createHmac('sha256', 'secret').update('1700000000.{"a":1}').digest('hex');
  t.equal(signCallback('secret', '1700000000', '{"a":1}'), `v1=${want}`);
});

t.test('headers carry delivery id, timestamp in seconds, attempt and signature', async (t) => {
  const h = callbackHeaders(rec, 'secret', 1_700_000_000_500);
  t.equal(h['x-polygate-delivery'], 'd-1');
  t.equal(h['x-polygate-timestamp'], '1700000000');
  t.equal(h['x-polygate-attempt'], '2');
  t.equal(h['x-polygate-signature'], signCallback('secret', '1700000000', rec.body));
  t.notOk('x-polygate-signature' in callbackHeaders(rec, '', Date.now()), 'no secret, no signature header');
});

t.test('retry delays double from backoff_ms up to max_backoff_ms, with small jitter', async (t) => {
  const cfg = { secret: '', max_attempts: 10, backoff_ms: 1000, max_backoff_ms: 5000, timeout_ms: 1000 };
  const within = (v: number, base: number) => v >= base * 0.9 && v <= base * 1.1;
  t.ok(within(retryDelay(cfg, 1), 1000));
  t.ok(within(retryDelay(cfg, 2), 2000));
  t.ok(within(retryDelay(cfg, 3), 4000));
  t.ok(within(retryDelay(cfg, 4), 5000), 'capped');
  t.ok(within(retryDelay(cfg, 60), 5000), 'no overflow');
});
