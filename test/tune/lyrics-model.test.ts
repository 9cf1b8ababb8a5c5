// tune.lyrics_model: lyrics tasks, and inspiration mode's lyrics, title and tags, are written by a
// chat model through the chat IR, so any chat upstream (here the built-in echo, and an emulated
// OpenAI Chat Completions upstream) serves them.
import t from 'tap';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import { startInProcessGateway, submit, untilFinished, upstreamConfig } from './tune-helpers.ts';

const up = await startTuneUpstream();
const chat = await startOpenAIChatUpstream();
const viaEcho = await startInProcessGateway(upstreamConfig(up, { tune: { lyrics_model: 'echo' } }));
const viaChat = await startInProcessGateway(
  upstreamConfig(up, {
    providers: { oai: { type: 'openai', base_url: chat.url, api_key: 'sk-upstream-chat', api: 'chat_completions' } },
    models: { writer: { routes: [{ provider: 'oai', model: 'gpt-lyricist' }] } },
    tune: { lyrics_model: 'writer' },
  }),
);
t.teardown(async () => {
  await Promise.all([viaEcho.stop(), viaChat.stop()]);
  await Promise.all([up.close(), chat.close()]);
});

t.test('a lyrics task is written by the chat model, not sent to the music upstream', async (t) => {
  const before = up.submissions().length;
  const done = await untilFinished(
    viaEcho,
    await submit(viaEcho, '/tune/submit/lyrics', { prompt: 'city lights after rain' }),
  );
  t.equal(done.status, 'SUCCESS');
  t.equal(done.action, 'LYRICS');
  t.match(
    done.data,
    { text: 'city lights after rain', title: 'City Lights After Rain', status: 'complete' },
    'echo answers with the theme itself',
  );
  t.equal(up.submissions().length, before, 'the music upstream was not asked');
});

t.test('inspiration mode: the chat model writes lyrics, title and tags, the upstream gets custom mode', async (t) => {
  chat.script({
    kind: 'text',
    text: 'Title: Harbour Lights\nTags: folk, acoustic\nLyrics:\n[Verse]\nBoats asleep on silver water\n[Chorus]\nHarbour lights',
  });
  const id = await submit(viaChat, '/tune/submit/music', {
    gpt_description_prompt: 'a folk song about a harbour at night',
    mv: 'tune-v3-5',
  });
  const done = await untilFinished(viaChat, id);
  t.equal(done.status, 'SUCCESS');
  const asked = chat.requests.at(-1)!.body as { model: string; messages: Array<{ role: string; content: unknown }> };
  t.equal(asked.model, 'gpt-lyricist');
  t.match(JSON.stringify(asked.messages), /a folk song about a harbour at night/);
  t.same(up.submissions().at(-1)!.body, {
    prompt: '[Verse]\nBoats asleep on silver water\n[Chorus]\nHarbour lights',
    title: 'Harbour Lights',
    tags: 'folk, acoustic',
    mv: 'chirp-v3-5',
    make_instrumental: false,
  });
  const [song] = done.data as Array<{ metadata: Record<string, unknown> }>;
  t.equal(
    song.metadata.gpt_description_prompt,
    'a folk song about a harbour at night',
    'the description stays visible',
  );
});

t.test('a lyrics task through a chat upstream reads Title and Lyrics from the answer', async (t) => {
  chat.script({ kind: 'text', text: 'Title: Night Train\nLyrics:\n[Verse]\nRails hum low' });
  const done = await untilFinished(viaChat, await submit(viaChat, '/tune/submit/lyrics', { prompt: 'trains' }));
  t.match(done.data, { title: 'Night Train', text: '[Verse]\nRails hum low', status: 'complete' });
});

t.test('a chat model that keeps failing fails the task with the reason', async (t) => {
  chat.script(
    { kind: 'error', status: 500 },
    { kind: 'error', status: 500 },
    { kind: 'error', status: 500 },
    { kind: 'error', status: 500 },
  );
  const done = await untilFinished(viaChat, await submit(viaChat, '/tune/submit/lyrics', { prompt: 'doomed' }));
  t.equal(done.status, 'FAIL');
  t.match(done.fail_reason, /lyrics model 'writer' failed/);
});
