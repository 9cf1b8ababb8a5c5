import t from 'tap';
import { wireTaskKeys } from '../../tune/wire-task-keys.ts';
import {
  encodeFetch,
  encodeLyricsSubmit,
  encodeMusicSubmit,
  encodeTask,
  encodeTuneError,
  endpointUnavailable,
  successEnvelope,
} from '../../../adapters/tune/index.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { MusicTask } from '../../../src/ir/music-task.ts';

const task: MusicTask = {
  id: 'task-1',
  action: 'MUSIC',
  status: 'SUCCESS',
  failReason: '',
  submitTime: 100,
  startTime: 101,
  finishTime: 110,
  progress: 100,
  notifyHook: '',
  output: {
    kind: 'songs',
    songs: [
      {
        id: 'clip',
        title: 'T',
        status: 'complete',
        metadata: {
          tags: 'pop',
          prompt: 'la',
          duration: 3.5,
          errorType: null,
          errorMessage: null,
          audioPromptId: null,
          gptDescriptionPrompt: '',
        },
        audioUrl: '/tune/audio/clip.mp3',
        imageUrl: 'https://cdn.example/i.jpeg',
        imageLargeUrl: '',
        videoUrl: '',
        modelName: 'tune-v3-0',
        majorModelVersion: 'v3',
      },
    ],
  },
};

t.test('a task encodes with the spec’s field names, `<n>%` progress and absolute audio URLs', async (t) => {
  const w = encodeTask(task, { origin: 'http://gw.example:8080/' });
  t.equal(w.progress, '100%');
  t.same(Object.keys(w), wireTaskKeys);
  const [s] = w.data as Array<Record<string, unknown>>;
  t.equal(s.audio_url, 'http://gw.example:8080/tune/audio/clip.mp3', 'polygate-served paths become absolute');
  t.equal(s.image_url, 'https://cdn.example/i.jpeg', 'upstream URLs are kept');
  t.same(s.metadata, {
    tags: 'pop',
    prompt: 'la',
    duration: 3.5,
    error_type: null,
    error_message: null,
    audio_prompt_id: null,
    gpt_description_prompt: '',
  });
});

t.test('a lyrics task always carries a lyrics object', async (t) => {
  const running = encodeTask(
    {
      ...task,
      action: 'LYRICS',
      status: 'IN_PROGRESS',
      finishTime: 0,
      progress: 0,
      output: { kind: 'lyrics', lyrics: null },
    },
    { origin: 'http://x' },
  );
  t.same(running.data, { id: '', text: '', title: '', status: 'running' });
  const failed = encodeTask(
    { ...task, action: 'LYRICS', status: 'FAIL', output: { kind: 'lyrics', lyrics: null } },
    { origin: 'http://x' },
  );
  t.same(failed.data, { id: '', text: '', title: '', status: 'error' });
});

t.test('the envelope: success with empty message; errors with their code and null data', async (t) => {
  t.same(successEnvelope('id'), { code: 'success', message: '', data: 'id' });
  t.same(encodeTuneError(new GatewayError('not-found', 'gone')), {
    status: 404,
    body: { code: 'not_found', message: 'gone', data: null },
    headers: undefined,
  });
  const u = encodeTuneError(endpointUnavailable('POST /tune/submit/concat'));
  t.equal(u.status, 501);
  t.equal((u.body as { code: string }).code, 'endpoint_unavailable');
  t.same(encodeTuneError(new GatewayError('rate-limit', 'slow', { retryAfter: 3 })).headers, { 'retry-after': '3' });
});

t.test('upstream requests: paths under base_url, mv from the route, no notify_hook', async (t) => {
  const m = encodeMusicSubmit(
    { kind: 'music', mode: { type: 'inspiration', description: 'd' }, instrumental: true, notifyHook: 'https://h' },
    'chirp-v3-5',
  );
  t.same(m, {
    path: '/submit/music',
    body: { gpt_description_prompt: 'd', mv: 'chirp-v3-5', make_instrumental: true },
    headers: {},
  });
  t.same(encodeLyricsSubmit({ kind: 'lyrics', prompt: 'p', notifyHook: 'https://h' }).body, { prompt: 'p' });
  t.same(encodeFetch(['a', 'b']), { path: '/fetch', body: { ids: ['a', 'b'] }, headers: {} });
});
