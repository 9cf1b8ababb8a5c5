// notify_hook: a signed POST of the finished task to a local receiver, retried with backoff under
// one delivery id. (Hooks pointing inward are refused at submission: validation.test.ts.)
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import { startHookReceiver } from './hook-receiver.ts';
import { fastTune, getTask, metric, startInProcessGateway, submit, upstreamConfig, waitFor } from './tune-helpers.ts';

/** What a receiver does (docs/tune.md): recompute the HMAC over `<timestamp>.<body>`, compare in constant time. */
function verify(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const ts = String(headers['x-polygate-timestamp']);
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`);
  const got = Buffer.from(String(headers['x-polygate-signature'] ?? ''));
  return (
    got.length === expected.length && timingSafeEqual(got, expected) && Math.abs(Date.now() / 1000 - Number(ts)) < 300
  );
}

const up = await startTuneUpstream();
/** The status each path answers, attempt by attempt; 200 once its list is used up. */
const answers: Record<string, number[]> = { '/flaky': [500, 503], '/down': [500, 500, 500, 500, 500, 500] };
const receiver = await startHookReceiver((path) => answers[path]?.shift() ?? 200);
const gw = await startInProcessGateway(upstreamConfig(up, { outbound: { allow_private_addresses: true } }));
t.teardown(async () => {
  await gw.stop();
  await Promise.all([up.close(), receiver.close()]);
});

const secret = fastTune.callback.secret;
const custom = { prompt: 'p', title: 'Called Back', tags: 'pop' };

t.test('a finished task is POSTed to its notify_hook, signed, as GET /tune/fetch/{id} returns it', async (t) => {
  const hook = `${receiver.url}/ok`;
  const id = await submit(gw, '/tune/submit/music', { ...custom, notify_hook: hook });
  t.equal((await getTask(gw, id)).notify_hook, hook);
  const [cb] = await waitFor('the callback', async () =>
    receiver.at('/ok').length > 0 ? receiver.at('/ok') : undefined,
  );
  t.equal(cb.headers['content-type'], 'application/json');
  t.match(String(cb.headers['x-polygate-delivery']), /^[0-9a-f-]{36}$/);
  t.match(String(cb.headers['x-polygate-timestamp']), /^\d+$/);
  t.match(String(cb.headers['x-polygate-signature']), /^v1=[0-9a-f]{64}$/);
  t.ok(verify(secret, cb.headers, cb.body), 'the signature verifies with the configured secret');
  t.notOk(verify('another-secret', cb.headers, cb.body), 'and not with another one');
  t.notOk(verify(secret, cb.headers, cb.body.replace('SUCCESS', 'FAIL')), 'a changed body does not verify');
  const task = JSON.parse(cb.body) as { task_id: string; status: string };
  t.equal(task.task_id, id);
  t.equal(task.status, 'SUCCESS');
  t.same(task, await getTask(gw, id), 'the body is the task object');
  await new Promise((r) => setTimeout(r, 200));
  t.equal(receiver.at('/ok').length, 1, 'one delivery for one task');
});

t.test('a lyrics task calls back too, FAIL tasks as well', async (t) => {
  const id = await submit(gw, '/tune/submit/lyrics', { prompt: 'rain', notify_hook: `${receiver.url}/lyrics` });
  const [cb] = await waitFor('the lyrics callback', async () =>
    receiver.at('/lyrics').length > 0 ? receiver.at('/lyrics') : undefined,
  );
  t.match(JSON.parse(cb.body), { task_id: id, action: 'LYRICS', status: 'SUCCESS' });
  up.script({ statuses: ['FAILURE'], failReason: 'no can do' });
  const failed = await submit(gw, '/tune/submit/music', { ...custom, notify_hook: `${receiver.url}/failed` });
  const [fcb] = await waitFor('the FAIL callback', async () =>
    receiver.at('/failed').length > 0 ? receiver.at('/failed') : undefined,
  );
  t.match(JSON.parse(fcb.body), { task_id: failed, status: 'FAIL', fail_reason: 'no can do' });
});

t.test('a receiver that fails twice and then accepts gets three attempts under one delivery id', async (t) => {
  await submit(gw, '/tune/submit/music', { ...custom, notify_hook: `${receiver.url}/flaky` });
  const attempts = await waitFor('three attempts', async () =>
    receiver.at('/flaky').length >= 3 ? receiver.at('/flaky') : undefined,
  );
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.at('/flaky').length, 3, 'no attempt after the 2xx');
  t.equal(new Set(attempts.map((a) => a.headers['x-polygate-delivery'])).size, 1, 'one delivery id');
  t.same(
    attempts.map((a) => a.headers['x-polygate-attempt']),
    ['1', '2', '3'],
  );
  t.equal(new Set(attempts.map((a) => a.body)).size, 1, 'the same body each time');
  t.ok(
    attempts.every((a) => verify(secret, a.headers, a.body)),
    'each attempt is signed',
  );
  t.ok((await metric(gw, /^polygate_callback_deliveries_total\{outcome="http_error"\}/)) >= 2);
  t.ok((await metric(gw, /^polygate_callback_deliveries_total\{outcome="delivered"\}/)) >= 1);
});

t.test('a receiver that keeps failing is given up after callback.max_attempts', async (t) => {
  await submit(gw, '/tune/submit/music', { ...custom, notify_hook: `${receiver.url}/down` });
  await waitFor('the abandoned delivery', async () =>
    (await metric(gw, /^polygate_callback_deliveries_total\{outcome="abandoned"\}/)) >= 1 ? true : undefined,
  );
  t.equal(receiver.at('/down').length, fastTune.callback.max_attempts);
});
