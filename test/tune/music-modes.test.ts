// Each music mode and lyrics, relayed to an emulated `tune` upstream and polled by GET and by
// batch POST until SUCCESS.
import t from 'tap';
import { wireTaskKeys } from './wire-task-keys.ts';
import { call, getTask, metric, submit, tuneGateway, untilFinished, waitFor, type WireTask } from './tune-helpers.ts';

const { up, gw } = await tuneGateway(t);

const songsOf = (task: WireTask) =>
  task.data as Array<{
    id: string;
    status: string;
    title: string;
    audio_url: string;
    metadata: Record<string, unknown>;
  }>;

t.test('custom mode: the upstream gets prompt, title, tags and the routed model; GET polls to SUCCESS', async (t) => {
  up.script({ statuses: ['IN_PROGRESS', 'SUCCESS'], hold: true });
  const id = await submit(gw, '/tune/submit/music', {
    prompt: '[Verse]\nla la la',
    title: 'Custom Song',
    tags: 'rock, indie',
    mv: 'tune-v3-5',
    make_instrumental: false,
  });
  const sent = up.submissions().at(-1)!;
  t.equal(sent.path, '/tune/submit/music');
  t.same(sent.body, {
    prompt: '[Verse]\nla la la',
    title: 'Custom Song',
    tags: 'rock, indie',
    mv: 'chirp-v3-5',
    make_instrumental: false,
  });
  t.not(id, sent.id, 'the client sees polygate’s task id, not the upstream’s');
  t.notMatch(id, /up-/);

  const first = await getTask(gw, id);
  t.equal(first.status, 'IN_PROGRESS');
  t.equal(first.finish_time, 0, 'finish_time is 0 while unfinished');
  t.match(first.progress, /^\d+%$/);
  const streaming = await waitFor('streaming songs', async () => {
    const x = await getTask(gw, id);
    return songsOf(x).length > 0 ? x : undefined;
  });
  t.equal(streaming.status, 'IN_PROGRESS');
  t.equal(streaming.progress, '40%', 'progress copied from the upstream');
  t.same(
    songsOf(streaming).map((s) => s.status),
    ['streaming', 'streaming'],
  );
  up.release(sent.id);

  const done = await untilFinished(gw, id);
  t.equal(done.status, 'SUCCESS');
  t.equal(done.action, 'MUSIC');
  t.equal(done.task_id, id);
  t.equal(done.progress, '100%');
  t.equal(done.fail_reason, '');
  t.equal(done.notify_hook, '');
  t.ok(done.finish_time > 0 && done.finish_time >= done.start_time, 'finish_time set once finished');
  const songs = songsOf(done);
  t.equal(songs.length, 2);
  t.same(
    songs.map((s) => [s.id, s.status, s.title, s.audio_url]),
    [
      [`clip-${sent.id}-a`, 'complete', 'Custom Song', `https://cdn.tune.example/clip-${sent.id}-a.mp3`],
      [`clip-${sent.id}-b`, 'complete', 'Custom Song', `https://cdn.tune.example/clip-${sent.id}-b.mp3`],
    ],
    'song data is copied from the upstream',
  );
  t.same(songs[0].metadata, {
    tags: 'rock, indie',
    prompt: '[Verse]\nla la la',
    duration: 120.5,
    error_type: null,
    error_message: null,
    audio_prompt_id: null,
    gpt_description_prompt: '',
  });
  t.same(Object.keys(done), wireTaskKeys);
  t.same(Object.keys(songs[0]), [
    'id',
    'title',
    'status',
    'metadata',
    'audio_url',
    'image_url',
    'image_large_url',
    'video_url',
    'model_name',
    'major_model_version',
  ]);
});

t.test('inspiration mode: gpt_description_prompt alone is relayed, with the default model', async (t) => {
  const id = await submit(gw, '/tune/submit/music', { gpt_description_prompt: 'a calm song about rain' });
  t.same(up.submissions().at(-1)!.body, {
    gpt_description_prompt: 'a calm song about rain',
    mv: 'chirp-v3-0',
    make_instrumental: false,
  });
  const done = await untilFinished(gw, id);
  t.equal(done.status, 'SUCCESS');
  t.equal(songsOf(done)[0].metadata.gpt_description_prompt, 'a calm song about rain');
});

t.test('continuation: polygate’s task id becomes the upstream’s, the clip and offset pass through', async (t) => {
  const srcId = await submit(gw, '/tune/submit/music', { prompt: 'verse one', title: 'Original', tags: 'pop' });
  const src = await untilFinished(gw, srcId);
  const upstreamSrc = up.submissions().at(-1)!.id;
  const clip = songsOf(src)[1].id;
  const id = await submit(gw, '/tune/submit/music', {
    task_id: srcId,
    continue_at: 30.5,
    continue_clip_id: clip,
    prompt: 'verse two',
  });
  t.same(up.submissions().at(-1)!.body, {
    task_id: upstreamSrc,
    continue_at: 30.5,
    continue_clip_id: clip,
    prompt: 'verse two',
    mv: 'chirp-v3-0',
    make_instrumental: false,
  });
  t.equal((await untilFinished(gw, id)).status, 'SUCCESS');
});

t.test('lyrics: relayed to the upstream and answered with one lyrics object', async (t) => {
  up.script({ hold: true });
  const id = await submit(gw, '/tune/submit/lyrics', { prompt: 'summer, beach' });
  const sent = up.submissions().at(-1)!;
  t.equal(sent.path, '/tune/submit/lyrics');
  t.same(sent.body, { prompt: 'summer, beach' });
  const running = await getTask(gw, id);
  t.equal(running.action, 'LYRICS');
  t.same(
    running.data,
    { id: '', text: '', title: '', status: 'running' },
    'a lyrics object even before the upstream has one',
  );
  up.release(sent.id);
  const done = await untilFinished(gw, id);
  t.equal(done.status, 'SUCCESS');
  t.same(done.data, {
    id: `lyr-${sent.id}`,
    text: '[Verse]\nUpstream lyrics on summer, beach',
    title: 'Upstream Lyrics',
    status: 'complete',
  });
});

t.test('batch POST /tune/fetch polls several tasks, honours ids order and the action filter', async (t) => {
  const music = await submit(gw, '/tune/submit/music', { prompt: 'x', title: 'Batch', tags: 'pop' });
  const lyrics = await submit(gw, '/tune/submit/lyrics', { prompt: 'batch lyrics' });
  // Statuses collected and asserted once: an assertion per poll made the test's count depend on timing.
  const statuses: number[] = [];
  const all = await waitFor('both tasks to succeed', async () => {
    const r = await call(gw, 'POST', '/tune/fetch', { ids: [lyrics, music, 'no-such-task'] });
    statuses.push(r.status);
    const list = r.body.data as WireTask[];
    return list.every((x) => x.status === 'SUCCESS') ? list : undefined;
  });
  t.same(new Set(statuses), new Set([200]), 'every batch poll answered 200');
  t.same(
    all.map((x) => x.task_id),
    [lyrics, music],
    'unknown ids are left out, the rest keep the order asked',
  );
  const onlyMusic = await call(gw, 'POST', '/tune/fetch', { ids: [lyrics, music], action: 'MUSIC' });
  t.same(
    (onlyMusic.body.data as WireTask[]).map((x) => x.task_id),
    [music],
  );
  const onlyLyrics = await call(gw, 'POST', '/tune/fetch', { ids: [lyrics, music], action: 'LYRICS' });
  t.same(
    (onlyLyrics.body.data as WireTask[]).map((x) => x.task_id),
    [lyrics],
  );
  t.same((await call(gw, 'POST', '/tune/fetch', { ids: [] })).body, { code: 'success', message: '', data: [] });
});

t.test('polygate polls the upstream with batched POST /fetch and counts tasks and polls', async (t) => {
  const polls = up.requests.filter((r) => r.path === '/tune/fetch' && r.method === 'POST');
  t.ok(polls.length > 0, 'polled by batch');
  t.ok(polls.every((r) => Array.isArray((r.body as { ids?: unknown }).ids)));
  t.equal(up.requests.filter((r) => r.path.startsWith('/tune/fetch/')).length, 0, 'no one-by-one GETs');
  t.ok(
    up.requests.every((r) => r.headers.authorization === `Bearer ${up.apiKey}`),
    'the upstream key, never the client’s',
  );
  t.ok((await metric(gw, /^polygate_tasks_total\{provider="up",action="MUSIC",status="SUCCESS"\}/)) >= 3);
  t.ok((await metric(gw, /^polygate_upstream_polls_total\{provider="up",outcome="ok"\}/)) >= 1);
});
