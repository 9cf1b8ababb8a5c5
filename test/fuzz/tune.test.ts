// Fuzzing every decoder of the tune adapter (family A): the client submissions (music, lyrics,
// fetch, upload, concat) and what a tune upstream answers (envelopes, submit data, task objects),
// then the encoders fed with what they decoded. Any input gives a value or a GatewayError.
import fc from 'fast-check';
import t from 'tap';
import {
  decodeAudioUpload,
  decodeConcat,
  decodeFetchQuery,
  decodeLyricsSubmission,
  decodeMusicSubmission,
  decodeSubmitData,
  decodeUpstreamEnvelope,
  decodeUpstreamTasks,
  encodeFetch,
  encodeLyricsSubmit,
  encodeMusicSubmit,
  encodeTask,
  encodeTuneError,
  mapUpstreamStatus,
} from '../../adapters/tune/index.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { fuzz } from './chat-fuzz.ts';
import { bodies } from './mutate-json.ts';

const music = [
  {
    prompt: '[Verse]\nla la',
    title: 'Rain',
    tags: 'pop, piano',
    mv: 'tune-v3-5',
    make_instrumental: false,
    notify_hook: 'https://hooks.example/x',
  },
  { gpt_description_prompt: 'a song about rain', prompt: '', title: null, tags: '', mv: 'tune-v3-5' },
  { task_id: 'task-1', continue_at: 12.5, continue_clip_id: 'clip-1', prompt: 'more', tags: 'rock' },
  { title: 'Calm', tags: 'ambient', make_instrumental: true },
];
const song = {
  id: 'clip-1',
  title: 'Rain',
  status: 'complete',
  metadata: {
    tags: 'pop',
    prompt: 'la',
    duration: 95.5,
    error_type: null,
    error_message: null,
    audio_prompt_id: null,
    gpt_description_prompt: '',
  },
  audio_url: 'https://cdn.example/1.mp3',
  image_url: '/tune/assets/1.png',
  image_large_url: '',
  video_url: '',
  model_name: 'chirp-v3-5',
  major_model_version: 'v3',
};
const tasks = [
  {
    task_id: 'up-1',
    action: 'MUSIC',
    status: 'SUCCESS',
    submit_time: 1_700_000_000_000,
    start_time: '1700000001',
    finish_time: 1_700_000_009,
    progress: '100%',
    fail_reason: '',
    data: [song, { ...song, id: 'clip-2' }],
  },
  {
    id: 'up-2',
    action: 'LYRICS',
    status: 'FAILURE',
    progress: 0.45,
    fail_reason: 'moderation',
    data: [{ id: 'l-1', text: '[Verse]', title: 'T', status: 'complete' }],
  },
];
const envelopes = [
  { code: 'success', message: '', data: tasks },
  { code: 'success', message: '', data: 'task-9' },
  { code: 'error', message: 'bad prompt', data: null },
];
const origin = fc.constantFrom('https://polygate.example', 'http://127.0.0.1:8080/', '');

t.test('client submissions: decoded, then re-encoded for the upstream', async (t) => {
  fuzz(t, 'music', bodies(music), (b) => {
    const sub = decodeMusicSubmission(b);
    JSON.stringify(encodeMusicSubmit(sub, 'tune-v3-5'));
  });
  fuzz(t, 'lyrics', bodies([{ prompt: 'rain', notify_hook: 'http://hooks.example:8080/a?b=c' }]), (b) =>
    JSON.stringify(encodeLyricsSubmit(decodeLyricsSubmission(b))),
  );
  fuzz(t, 'fetch', bodies([{ ids: ['a', 'b'], action: 'MUSIC' }, { ids: [] }]), (b) =>
    JSON.stringify(encodeFetch(decodeFetchQuery(b).ids)),
  );
  fuzz(t, 'upload', bodies([{ url: 'https://cdn.example/a.mp3' }]), (b) => decodeAudioUpload(b));
  fuzz(t, 'concat', bodies([{ clip_id: 'clip-1', is_infill: false }]), (b) => decodeConcat(b));
});

t.test('upstream answers: envelope, submit data and tasks, encoded back for a client', async (t) => {
  const status = fc.oneof(fc.constantFrom(200, 201, 400, 401, 404, 429, 500, 503), fc.integer());
  fuzz(t, 'envelope, submit data and tasks', fc.tuple(status, bodies(envelopes), origin), ([st, body]) => {
    const data = decodeUpstreamEnvelope(st, body, 'tune');
    decodeSubmitData(data, 'tune');
  });
  fuzz(t, 'tasks', fc.tuple(bodies([tasks, tasks[0], tasks[1]]), origin), ([data, o]) => {
    for (const v of decodeUpstreamTasks(data)) {
      if (!Number.isFinite(v.progress) || !Number.isFinite(v.submitTime) || !Number.isFinite(v.finishTime))
        throw new RangeError(`a non-finite number in ${JSON.stringify(v).slice(0, 200)}`);
      JSON.stringify(encodeTask({ ...v, notifyHook: '' }, { origin: o }));
    }
  });
  fuzz(t, 'status words', fc.string(), (s) => mapUpstreamStatus(s));
});

t.test('errors: every GatewayError a decoder throws encodes as a family A envelope', async (t) => {
  fuzz(t, 'encodeTuneError', fc.tuple(fc.constantFrom(400, 404, 429, 500, 502), bodies(envelopes)), ([st, body]) => {
    try {
      decodeUpstreamEnvelope(st, body, 'tune');
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      JSON.stringify(encodeTuneError(e));
    }
  });
});
