import t from 'tap';
import { thrownGatewayError as caught } from '../thrown-gateway-error.ts';
import {
  decodeConcat,
  decodeFetchQuery,
  decodeLyricsSubmission,
  decodeMusicSubmission,
} from '../../../adapters/tune/index.ts';

t.test('custom mode decodes lyrics, title, tags, model and instrumental flag', async (t) => {
  t.same(
    decodeMusicSubmission({
      prompt: 'la',
      title: 'T',
      tags: 'pop',
      mv: 'tune-v3-5',
      make_instrumental: false,
      notify_hook: 'https://hooks.example/x',
    }),
    {
      kind: 'music',
      mode: { type: 'custom', lyrics: 'la', title: 'T', tags: 'pop' },
      model: 'tune-v3-5',
      instrumental: false,
      notifyHook: 'https://hooks.example/x',
    },
  );
});

t.test('inspiration mode needs only gpt_description_prompt; empty custom fields count as absent', async (t) => {
  t.same(decodeMusicSubmission({ gpt_description_prompt: 'rain', prompt: '', title: null, tags: '' }).mode, {
    type: 'inspiration',
    description: 'rain',
  });
});

t.test('continuation mode is chosen by any continuation field and needs all three', async (t) => {
  t.same(decodeMusicSubmission({ task_id: 'a', continue_at: 12.5, continue_clip_id: 'c', tags: 'rock' }).mode, {
    type: 'continuation',
    taskId: 'a',
    clipId: 'c',
    continueAt: 12.5,
    lyrics: undefined,
    title: undefined,
    tags: 'rock',
  });
  const e = caught(() => decodeMusicSubmission({ continue_clip_id: 'c' }));
  t.equal(e.kind, 'invalid-request');
  t.equal(e.param, 'task_id');
});

t.test('an instrumental in custom mode may leave out the lyrics', async (t) => {
  t.same(decodeMusicSubmission({ title: 'T', tags: 'ambient', make_instrumental: true }).mode, {
    type: 'custom',
    lyrics: '',
    title: 'T',
    tags: 'ambient',
  });
  t.equal(caught(() => decodeMusicSubmission({ title: 'T', tags: 'ambient' })).param, 'prompt');
});

t.test('whitespace-only required fields are missing', async (t) => {
  t.equal(caught(() => decodeMusicSubmission({ prompt: 'p', title: '   ', tags: 'x' })).param, 'title');
});

t.test('errors carry the field as param', async (t) => {
  t.equal(caught(() => decodeMusicSubmission({ prompt: 'p', title: 'T', tags: 'x', extra: 1 })).param, 'extra');
  t.equal(caught(() => decodeLyricsSubmission({ prompt: 'p', notify_hook: 'ftp://x' })).param, 'notify_hook');
  t.equal(caught(() => decodeFetchQuery({ ids: ['a', 1] })).param, 'ids.1');
  t.equal(caught(() => decodeConcat({ clip_id: 'c', is_infill: 1 })).param, 'is_infill');
});

t.test('fetch queries: ids and an optional action', async (t) => {
  t.same(decodeFetchQuery({ ids: ['a', 'b'] }), { ids: ['a', 'b'] });
  t.same(decodeFetchQuery({ ids: ['a'], action: 'LYRICS' }), { ids: ['a'], action: 'LYRICS' });
  t.same(decodeFetchQuery({ ids: ['a'], action: '' }), { ids: ['a'] });
});
