// Issue #30, finding 9: a music task's `audio_url` was built from the client's Host header, so a
// forged Host put another host into the URL polygate handed out. Now it starts with
// `tune.public_base_url`, or, unset, with the listen address (as callback bodies already did).
import { request } from 'node:http';
import t from 'tap';
import { startInProcessGateway, testConfig, untilFinished, type WireTask } from '../tune/tune-helpers.ts';
import { TEST_KEY, type RunningGateway } from '../helpers/start-gateway.ts';

const tune = { music_models: ['tune-v3-0'], default_model: 'tune-v3-0', sandbox_delay_ms: 50, poll_interval_ms: 40 };
const config = (extra: Record<string, unknown> = {}) =>
  testConfig({
    providers: { sandbox: { type: 'sandbox-tune' } },
    models: { 'tune-v3-0': { routes: [{ provider: 'sandbox', model: 'sandbox-v3' }] } },
    tune: { ...tune, ...extra },
  });

/** A request with a Host header of the test's choosing (fetch does not let one be set). */
function withHost(gw: RunningGateway, path: string, host: string, body?: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${gw.url}${path}`,
      {
        method: payload ? 'POST' : 'GET',
        headers: {
          host,
          authorization: `Bearer ${TEST_KEY}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function finishedSong(gw: RunningGateway, host: string): Promise<{ audio_url: string }> {
  const submitted = await withHost(gw, '/tune/submit/music', host, {
    prompt: '[Verse]\nla',
    title: 'Song',
    tags: 'pop',
  });
  const id = submitted.data as string;
  await untilFinished(gw, id);
  const task = (await withHost(gw, `/tune/fetch/${id}`, host)).data as WireTask;
  return (task.data as unknown as { audio_url: string }[])[0];
}

t.test('a forged Host header does not reach audio_url: the listen address does', async (t) => {
  const gw = await startInProcessGateway(config());
  t.teardown(() => gw.stop());
  const song = await finishedSong(gw, 'evil.example:666');
  t.notMatch(song.audio_url, 'evil.example');
  t.match(song.audio_url, new RegExp(`^${gw.url}/tune/audio/`));
  t.equal((await fetch(song.audio_url)).status, 200, 'the URL serves the audio');
});

t.test('tune.public_base_url, when set, is the base', async (t) => {
  const gw = await startInProcessGateway(config({ public_base_url: 'https://music.example.com/gw/' }));
  t.teardown(() => gw.stop());
  const song = await finishedSong(gw, 'evil.example');
  t.match(song.audio_url, /^https:\/\/music\.example\.com\/gw\/tune\/audio\/[0-9a-f-]+\.mp3$/);
});
