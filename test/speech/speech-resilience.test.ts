// Speech routes go through the chat route loop (src/services/resilience/run-routes.ts) with the one
// failure classifier: an upstream 429 falls back to the next route, Retry-After is waited for up
// to max_retry_after_ms, and a breaker opened by failures skips the route on later requests.
// Before the unification speech fell back only on 5xx, never retried and had no breakers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes, route, routesTo } from '../helpers/model-routes.ts';
import { fixtureDir, speechFixture, startOpenAIAudioUpstream } from '../emulators/openai-audio-upstream.ts';
import { speakWav } from '../helpers/openai-audio.ts';

const first = await startOpenAIAudioUpstream();
const second = await startOpenAIAudioUpstream();
const gw = await startGateway(
  testConfig({
    providers: {
      a: { type: 'openai', base_url: first.url, api_key: first.key },
      b: { type: 'openai', base_url: second.url, api_key: second.key },
    },
    models: {
      ...modelRoutes({ 'tts-fb': ['a/tts-a', 'b/tts-b'], 'stt-fb': ['a/stt-a', 'b/stt-b'] }),
      'tts-retry': routesTo(route('a/tts-r', { retries: { max_retries: 1, max_retry_after_ms: 1500 } })),
      'tts-breaker': {
        breaker: { consecutive_failures: 1, cooldown_ms: 600_000 },
        ...routesTo('a/tts-brk', 'b/tts-b'),
      },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await Promise.all([first.close(), second.close()]);
});
const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
const tone = readFileSync(join(fixtureDir, 'tone-0.3s.wav'));
const reset = (): void => {
  first.reset();
  second.reset();
};

t.test('speech falls back to the next route on an upstream 429', async (t) => {
  reset();
  first.script({ kind: 'error', status: 429, type: 'requests', message: 'Rate limit reached', retryAfter: 30 });
  const res = await speakWav(client, 'tts-fb', 'Hello.');
  t.equal(res.headers.get('x-polygate-route'), 'b/tts-b');
  t.same(Buffer.from(await res.arrayBuffer()), speechFixture('wav'));
  t.equal(first.requests.length, 1, 'the throttled route was tried once');
  t.equal(second.requests.length, 1);
});

t.test('transcription falls back to the next route on an upstream 429', async (t) => {
  reset();
  first.script({ kind: 'error', status: 429, type: 'requests', message: 'Rate limit reached' });
  const res = await client.audio.transcriptions
    .create({ model: 'stt-fb', file: await toFile(tone, 'tone.wav', { type: 'audio/wav' }) })
    .withResponse();
  t.equal(res.response.headers.get('x-polygate-route'), 'b/stt-b');
  t.type(res.data.text, 'string');
  t.equal(first.requests.length, 1);
  t.equal(second.requests.length, 1);
});

t.test('a Retry-After within max_retry_after_ms is waited for and the route retried', async (t) => {
  reset();
  first.script({ kind: 'error', status: 429, type: 'requests', message: 'Rate limit reached', retryAfter: 1 });
  const res = await speakWav(client, 'tts-retry', 'Again.');
  t.same(Buffer.from(await res.arrayBuffer()), speechFixture('wav'));
  t.equal(first.requests.length, 2, 'the same route, twice');
});

t.test('a Retry-After past max_retry_after_ms is not waited for: the 429 reaches the client', async (t) => {
  reset();
  first.script({ kind: 'error', status: 429, type: 'requests', message: 'Rate limit reached', retryAfter: 60 });
  const err = await client.audio.speech
    .create({ model: 'tts-retry', input: 'Again.', voice: 'alloy' })
    .catch((e: unknown) => e);
  t.type(err, OpenAI.RateLimitError);
  t.equal(first.requests.length, 1, 'no retry');
});

t.test('an open breaker skips the failing route on the next requests', async (t) => {
  reset();
  first.script({ kind: 'error', status: 503, type: 'server_error', message: 'overloaded' });
  for (let i = 0; i < 2; i++) {
    const res = await speakWav(client, 'tts-breaker', `Call ${i}.`);
    t.equal(res.headers.get('x-polygate-route'), 'b/tts-b', `request ${i + 1} served by the second route`);
    await res.arrayBuffer();
  }
  t.equal(first.requests.length, 1, 'the first route was called once, then skipped');
  t.equal(second.requests.length, 2);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /polygate_circuit_breaker_route_state\{provider="a",upstream_model="tts-brk"\} 2/);
});
