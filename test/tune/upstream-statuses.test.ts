// How upstream task states reach clients: status variants mapped onto the spec's three, failures
// with their reason, upstream errors retried, and the task deadline.
import t from 'tap';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import {
  call,
  getTask,
  metric,
  startInProcessGateway,
  submit,
  untilFinished,
  upstreamConfig,
  waitFor,
} from './tune-helpers.ts';

const up = await startTuneUpstream();
const gw = await startInProcessGateway(upstreamConfig(up, { tune: { task_deadline_s: 60 } }));
const short = await startInProcessGateway(upstreamConfig(up, { tune: { task_deadline_s: 1 } }));
t.teardown(async () => {
  await Promise.all([gw.stop(), short.stop()]);
  await up.close();
});

const custom = { prompt: 'words', title: 'T', tags: 'pop' };

t.test('SUBMITTED, QUEUED and NOT_START read as IN_PROGRESS; SUCCESS ends the task', async (t) => {
  const variants = ['SUBMITTED', 'QUEUED', 'NOT_START'];
  up.script({ statuses: [...variants, 'SUCCESS'], hold: true });
  const id = await submit(gw, '/tune/submit/music', custom);
  const upId = up.submissions().at(-1)!.id;
  const seen: string[] = [];
  // Step the upstream through each variant; polygate must show IN_PROGRESS for every one.
  for (let i = 0; i < variants.length; i++) {
    // Two more fetches of the task: at least one was sent after the upstream changed state.
    const n = up.fetched(upId);
    await waitFor('polls of the current variant', async () => (up.fetched(upId) >= n + 2 ? true : undefined));
    const task = await getTask(gw, id);
    seen.push(task.status);
    t.equal(task.finish_time, 0);
    t.equal(task.progress, '0%');
    up.step(upId);
  }
  t.same(seen, ['IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS']);
  const done = await untilFinished(gw, id);
  t.equal(done.status, 'SUCCESS');
});

t.test('each status variant maps onto the spec’s states', async (t) => {
  const cases: Array<[string, string]> = [
    ['NOT_START', 'IN_PROGRESS'],
    ['SUBMITTED', 'IN_PROGRESS'],
    ['QUEUED', 'IN_PROGRESS'],
    ['running', 'IN_PROGRESS'],
    ['FAILURE', 'FAIL'],
    ['FAILED', 'FAIL'],
    ['complete', 'SUCCESS'],
  ];
  for (const [word, expected] of cases) {
    up.script({ statuses: [word], hold: true });
    const id = await submit(gw, '/tune/submit/music', custom);
    const upId = up.submissions().at(-1)!.id;
    await waitFor(`a poll after ${word}`, async () => (up.fetched(upId) >= 1 ? true : undefined));
    const task = await waitFor(`${word} to show`, async () => {
      const x = await getTask(gw, id);
      return expected === 'IN_PROGRESS' || x.status !== 'IN_PROGRESS' ? x : undefined;
    });
    t.equal(task.status, expected, `${word} → ${expected}`);
    t.equal(task.finish_time === 0, expected === 'IN_PROGRESS', `${word}: finish_time 0 only while unfinished`);
  }
});

t.test('a failing upstream task ends in FAIL with its reason', async (t) => {
  up.script({ statuses: ['NOT_START', 'IN_PROGRESS', 'FAILURE'], failReason: 'content policy: lyrics rejected' });
  const id = await submit(gw, '/tune/submit/music', custom);
  const done = await untilFinished(gw, id);
  t.equal(done.status, 'FAIL');
  t.equal(done.fail_reason, 'content policy: lyrics rejected');
  t.ok(done.finish_time > 0);
  t.ok((await metric(gw, /^polygate_tasks_total\{provider="up",action="MUSIC",status="FAIL"\}/)) >= 1);
});

t.test('millisecond timestamps from the upstream are reported as epoch seconds', async (t) => {
  up.script({ statuses: ['SUCCESS'], msTimestamps: true });
  const id = await submit(gw, '/tune/submit/music', custom);
  const done = await untilFinished(gw, id);
  const now = Date.now() / 1000;
  for (const k of ['submit_time', 'start_time', 'finish_time'] as const)
    t.ok(done[k] > now - 600 && done[k] < now + 600, `${k} ${done[k]} is in seconds`);
});

t.test('upstream poll errors are retried with backoff and the task still finishes', async (t) => {
  up.failFetches(3, 503);
  const id = await submit(gw, '/tune/submit/music', custom);
  const done = await untilFinished(gw, id);
  t.equal(done.status, 'SUCCESS');
  t.ok((await metric(gw, /^polygate_upstream_polls_total\{provider="up",outcome="error"\}/)) >= 3);
});

t.test('an upstream that refuses a submission answers the caller with the envelope and no task', async (t) => {
  up.script({ submitError: { status: 400, message: 'prompt contains a banned artist name' } });
  const r = await call(gw, 'POST', '/tune/submit/music', custom);
  t.equal(r.status, 400);
  t.equal(r.body.code, 'invalid_request');
  t.match(r.body.message, /banned artist name/);
  t.equal(r.body.data, null);
  up.script({ submitError: { status: 500, message: 'boom' } });
  const r5 = await call(gw, 'POST', '/tune/submit/music', custom);
  t.equal(r5.status, 502);
  t.equal(r5.body.code, 'upstream_error');
});

t.test('a task that outlives the deadline fails with a reason that says so', async (t) => {
  up.script({ statuses: ['QUEUED'] });
  const id = await submit(short, '/tune/submit/music', custom);
  const done = await untilFinished(short, id);
  t.equal(done.status, 'FAIL');
  t.match(done.fail_reason, /deadline/);
  t.match(done.fail_reason, /1 s/);
});
