// The default config/gateway.yaml serves family A through the built-in sandbox-tune provider:
// IN_PROGRESS with streaming songs, then SUCCESS with two complete songs whose MP3 polygate
// renders (ffmpeg + espeak-ng) and serves. Only the storage path and the delays are changed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../helpers/start-gateway.ts';
import { call, getTask, startGateway, submit, untilFinished, waitFor, type WireTask } from './tune-helpers.ts';

const key = 'sk-polygate-demo';
const dir = mkdtempSync(join(tmpdir(), 'polygate-sandbox-'));
const config = parse(readFileSync(join(repoRoot, 'config/gateway.yaml'), 'utf8')) as Record<
  string,
  Record<string, unknown>
>;
config.storage = { driver: 'sqlite', path: join(dir, 'polygate.db') };
// Long enough to observe the running state with margin on a busy machine; the tasks below run concurrently.
config.tune = { ...config.tune, sandbox_delay_ms: 1500, poll_interval_ms: 50 };
const file = join(dir, 'gateway.yaml');
writeFileSync(file, stringify(config));
const gw = await startGateway(file, { POLYGATE_KEY: '' });
t.teardown(() => gw.stop());

// Submitted together so their delays overlap; each test below then follows its own task.
const submitted = {
  custom: submit(
    gw,
    '/tune/submit/music',
    {
      prompt: '[Verse]\nHello from the sandbox\n[Chorus]\nSing along',
      title: 'Sandbox Song',
      tags: 'synth, pop',
      mv: 'tune-v3-5',
    },
    key,
  ),
  inspiration: submit(
    gw,
    '/tune/submit/music',
    { gpt_description_prompt: 'a song about quiet harbours at night' },
    key,
  ),
  instrumental: submit(gw, '/tune/submit/music', { title: 'Ambient', tags: 'ambient', make_instrumental: true }, key),
  lyrics: submit(gw, '/tune/submit/lyrics', { prompt: 'autumn leaves and trains' }, key),
  doomed: submit(gw, '/tune/submit/music', { prompt: 'x [sandbox:fail]', title: 'Doomed', tags: 'pop' }, key),
};

type Song = {
  id: string;
  status: string;
  title: string;
  audio_url: string;
  image_url: string;
  model_name: string;
  major_model_version: string;
  metadata: { duration: number | null; prompt: string; tags: string; gpt_description_prompt: string };
};
const songs = (x: WireTask) => x.data as unknown as Song[];

t.test('custom mode: streaming songs while in progress, then two complete songs with playable MP3s', async (t) => {
  const id = await submitted.custom;
  const running = await waitFor('streaming songs', async () => {
    const x = await getTask(gw, id, key);
    return songs(x).length > 0 || x.status !== 'IN_PROGRESS' ? x : undefined;
  });
  t.equal(running.status, 'IN_PROGRESS', 'seen while running (sandbox_delay_ms keeps it there)');
  t.same(
    songs(running).map((s) => s.status),
    ['streaming', 'streaming'],
  );
  t.equal(running.finish_time, 0);

  const done = await untilFinished(gw, id, key);
  t.equal(done.status, 'SUCCESS');
  t.equal(done.progress, '100%');
  t.ok(done.finish_time >= done.start_time && done.finish_time > 0);
  const list = songs(done);
  t.equal(list.length, 2);
  t.not(list[0].id, list[1].id);
  for (const s of list) {
    t.equal(s.status, 'complete');
    t.equal(s.title, 'Sandbox Song');
    t.equal(s.model_name, 'tune-v3-5');
    t.equal(s.major_model_version, 'v3');
    t.equal(s.metadata.tags, 'synth, pop');
    t.match(
      s.audio_url,
      new RegExp(`^${gw.url.replace('127.0.0.1', '(127\\.0\\.0\\.1|localhost)')}/tune/audio/${s.id}\\.mp3$`),
    );
    const res = await fetch(s.audio_url);
    t.equal(res.status, 200, 'audio served without a key');
    t.equal(res.headers.get('content-type'), 'audio/mpeg');
    const mp3 = Buffer.from(await res.arrayBuffer());
    t.ok(
      mp3.subarray(0, 3).toString('latin1') === 'ID3' || (mp3[0] === 0xff && (mp3[1] & 0xe0) === 0xe0),
      'an MP3 file',
    );
    const path = join(dir, `${s.id}.mp3`);
    writeFileSync(path, mp3);
    const probed = Number(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]).toString(),
    );
    t.ok(
      s.metadata.duration !== null && Math.abs(probed - s.metadata.duration) < 0.5,
      `duration ${s.metadata.duration} matches the file (${probed})`,
    );
  }
  const ranged = await fetch(list[0].audio_url, { headers: { range: 'bytes=0-9' } });
  t.equal(ranged.status, 206);
  t.equal((await ranged.arrayBuffer()).byteLength, 10);
});

t.test('inspiration mode: the sandbox writes lyrics, title and tags from the description', async (t) => {
  const id = await submitted.inspiration;
  const done = await untilFinished(gw, id, key);
  t.equal(done.status, 'SUCCESS');
  const [s] = songs(done);
  t.equal(s.title, 'A Song About Quiet');
  t.match(s.metadata.prompt, /quiet harbours at night/);
  t.equal(s.metadata.gpt_description_prompt, 'a song about quiet harbours at night');
  t.equal(s.model_name, 'tune-v3-0', 'the default mv');
});

t.test('continuation and instrumental run through the sandbox too', async (t) => {
  const src = await untilFinished(gw, await submitted.instrumental, key);
  t.equal(src.status, 'SUCCESS');
  const clip = songs(src)[0];
  t.equal(clip.metadata.prompt, '');
  const cont = await untilFinished(
    gw,
    await submit(gw, '/tune/submit/music', { task_id: src.task_id, continue_at: 4, continue_clip_id: clip.id }, key),
    key,
  );
  t.equal(cont.status, 'SUCCESS');
  t.equal(songs(cont)[0].title, 'Ambient (extended)');
});

t.test('lyrics: one lyrics object, complete', async (t) => {
  const done = await untilFinished(gw, await submitted.lyrics, key);
  t.equal(done.action, 'LYRICS');
  t.match(done.data, { title: 'Autumn Leaves And Trains', status: 'complete', text: /autumn leaves and trains/ });
});

t.test('[sandbox:fail] makes the task fail, so clients can test that path', async (t) => {
  const done = await untilFinished(gw, await submitted.doomed, key);
  t.equal(done.status, 'FAIL');
  t.match(done.fail_reason, /sandbox: failure requested/);
  t.same(
    songs(done).map((s) => s.status),
    ['error', 'error'],
  );
});

t.test('unknown audio is a 404 envelope', async (t) => {
  const r = await call(gw, 'GET', '/tune/audio/00000000-0000-4000-8000-000000000000.mp3', undefined, null);
  t.equal(r.status, 404);
  t.equal(r.body.code, 'not_found');
  const bad = await call(gw, 'GET', '/tune/audio/..%2Fpolygate.db', undefined, null);
  t.equal(bad.status, 404);
});
