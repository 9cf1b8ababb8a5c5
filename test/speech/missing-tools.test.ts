// On a machine without espeak-ng, ffmpeg or pocketsphinx, local-speech says so: a warning at start
// naming the apt packages, and on use a 503 with the same advice. polygate itself keeps serving.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { startGateway, TEST_KEY } from '../helpers/start-gateway.ts';
import { fixtureDir } from '../emulators/openai-audio-upstream.ts';
import { localSpeechConfig } from './speech-test-helpers.ts';

// An empty PATH: none of the system tools can be found (node itself is started by absolute path).
const gw = await startGateway(localSpeechConfig(), { PATH: '/nonexistent' });
t.teardown(() => gw.stop());
const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });

t.test('a warning at start names the missing tools and their packages', async (t) => {
  await gw.matchLog(
    t,
    /provider 'speech' \(local-speech\): ffmpeg, espeak-ng, pocketsphinx are not installed; install with: apt-get install ffmpeg espeak-ng pocketsphinx/,
  );
});

t.test('speech answers 503 with the package to install', async (t) => {
  const e = await client.audio.speech
    .create({ model: 'tts-1', input: 'Hello.', voice: 'alloy' })
    .catch((x: unknown) => x);
  t.ok(e instanceof OpenAI.APIError);
  t.equal((e as InstanceType<typeof OpenAI.APIError>).status, 503);
  t.match((e as Error).message, /espeak-ng.*not installed.*apt-get install ffmpeg espeak-ng/);
});

t.test('transcription answers 503 with the package to install', async (t) => {
  const tone = readFileSync(join(fixtureDir, 'tone-0.3s.wav'));
  const e = await client.audio.transcriptions
    .create({ model: 'whisper-1', file: await toFile(tone, 'tone.wav') })
    .catch((x: unknown) => x);
  t.equal((e as InstanceType<typeof OpenAI.APIError>).status, 503);
  t.match((e as Error).message, /pocketsphinx.*apt-get install ffmpeg pocketsphinx/);
});

t.test('the gateway is still up', async (t) => {
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
});
