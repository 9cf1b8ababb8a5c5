// Tasks are visible only inside the workspace of the key that submitted them: another
// workspace's id reads exactly like an unknown one.
import t from 'tap';
import { OTHER_KEY, TEST_KEY } from '../helpers/start-gateway.ts';
import { call, submit, tuneGateway, untilFinished, type WireTask } from './tune-helpers.ts';

// OTHER_KEY (workspace ws2) may use every model here, so it can submit its own tasks.
const { up, gw } = await tuneGateway(t, {
  keys: [
    { id: 'test', secret: TEST_KEY, workspace: 'ws1' },
    { id: 'other', secret: OTHER_KEY, workspace: 'ws2' },
  ],
});

const mine = await submit(gw, '/tune/submit/music', { prompt: 'p', title: 'Mine', tags: 'pop' }, TEST_KEY);
const theirs = await submit(gw, '/tune/submit/music', { prompt: 'p', title: 'Theirs', tags: 'pop' }, OTHER_KEY);
const mineDone = await untilFinished(gw, mine, TEST_KEY);
await untilFinished(gw, theirs, OTHER_KEY);

t.test('GET of another workspace’s task is the same 404 as an unknown id', async (t) => {
  const foreign = await call(gw, 'GET', `/tune/fetch/${theirs}`, undefined, TEST_KEY);
  const unknown = await call(gw, 'GET', '/tune/fetch/00000000-0000-0000-0000-000000000000', undefined, TEST_KEY);
  t.equal(foreign.status, 404);
  t.same(foreign.body, { code: 'not_found', message: `task '${theirs}' not found`, data: null });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.code, foreign.body.code);
  const own = await call(gw, 'GET', `/tune/fetch/${theirs}`, undefined, OTHER_KEY);
  t.equal(own.status, 200, 'its owner still sees it');
});

t.test('POST /tune/fetch leaves other workspaces’ tasks out', async (t) => {
  const r1 = await call(gw, 'POST', '/tune/fetch', { ids: [mine, theirs] }, TEST_KEY);
  t.same(
    (r1.body.data as WireTask[]).map((x) => x.task_id),
    [mine],
  );
  const r2 = await call(gw, 'POST', '/tune/fetch', { ids: [mine, theirs] }, OTHER_KEY);
  t.same(
    (r2.body.data as WireTask[]).map((x) => x.task_id),
    [theirs],
  );
});

t.test('a continuation of another workspace’s task is refused like an unknown one', async (t) => {
  const clip = (mineDone.data as Array<{ id: string }>)[0].id;
  const submissions = up.submissions().length;
  const r = await call(
    gw,
    'POST',
    '/tune/submit/music',
    { task_id: mine, continue_at: 5, continue_clip_id: clip },
    OTHER_KEY,
  );
  t.equal(r.status, 400);
  t.equal(r.body.code, 'invalid_request');
  t.equal(r.body.message, `task_id: no task '${mine}' in this workspace`);
  t.equal(up.submissions().length, submissions, 'nothing was sent upstream');
});
