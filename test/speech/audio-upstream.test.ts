// Done-when: the same SDK calls through an OpenAI-compatible upstream (the emulator). What the
// client gets is what the upstream sent; what the upstream got is the client's request with the
// route's model and the gateway's own key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import {
  defaultTranscript,
  fixtureDir,
  speechFixture,
  startOpenAIAudioUpstream,
} from '../emulators/openai-audio-upstream.ts';
import { speakEachFormat, speakWav, transcribeEachFormat } from '../helpers/openai-audio.ts';
import { metricValue } from './speech-test-helpers.ts';

const up = await startOpenAIAudioUpstream();
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      oa: { type: 'openai', base_url: up.url, api_key: up.key },
      dead: { type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'sk-dead-upstream' },
      badkey: { type: 'openai', base_url: up.url, api_key: 'sk-not-the-upstream-key' },
    },
    models: modelRoutes({
      'tts-1': 'oa/tts-1-upstream',
      'whisper-1': 'oa/whisper-upstream',
      'tts-fallback': ['dead/tts-1', 'oa/tts-1'],
      'tts-badkey': 'badkey/tts-1',
    }),
  }),
);
t.teardown(async () => {
  await gw.stop();
  await up.close();
});
const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
const tone = readFileSync(join(fixtureDir, 'tone-0.3s.wav'));
const last = () => up.requests.at(-1)!;

t.test('speech: every format relayed byte for byte with the upstream’s content type', async (t) => {
  const request = { input: 'Hello there.', voice: 'onyx', speed: 1.25 } as const;
  await speakEachFormat(t, client, { model: 'tts-1', ...request }, (format, res) => {
    t.equal(res.headers.get('x-polygate-route'), 'oa/tts-1-upstream');
    t.same(last().json, { model: 'tts-1-upstream', ...request, response_format: format });
  });
});

t.test('a voice newer than polygate reaches the upstream as sent (issue #29)', async (t) => {
  const res = await client.audio.speech.create({ model: 'tts-1', input: 'Hi.', voice: 'marin' as 'alloy' });
  t.equal(res.status, 200);
  t.equal((last().json as { voice?: string }).voice, 'marin');
});

t.test('the upstream gets the gateway’s key, never the client’s', async (t) => {
  await client.audio.speech.create({ model: 'tts-1', input: 'Hi.', voice: 'alloy' });
  t.equal(last().headers.authorization, `Bearer ${up.key}`);
  t.notMatch(JSON.stringify(last().headers), TEST_KEY);
});

t.test('speech fields polygate does not model still arrive', async (t) => {
  const res = await fetch(`${gw.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tts-1',
      input: 'Hi.',
      voice: 'alloy',
      instructions: 'Whisper it.',
      vendor_knob: { level: 2 },
    }),
  });
  t.equal(res.status, 200);
  t.same(last().json, {
    model: 'tts-1-upstream',
    input: 'Hi.',
    voice: 'alloy',
    response_format: 'mp3',
    instructions: 'Whisper it.',
    vendor_knob: { level: 2 },
  });
});

t.test('transcriptions: every response format relayed as the upstream sent it', async (t) => {
  const { json, text, srt, vtt, verbose } = await transcribeEachFormat(client, tone, ['word']);
  t.same(json, { text: defaultTranscript, usage: { type: 'duration', seconds: 3 } });
  t.equal(text, `${defaultTranscript}\n`);
  t.equal(srt, `1\n00:00:00,000 --> 00:00:02,500\n${defaultTranscript}\n\n`);
  t.equal(vtt, `WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n${defaultTranscript}\n\n`);
  t.equal(verbose.words?.length, 9);
  t.equal(verbose.segments, undefined);

  const raw = await fetch(`${gw.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}` },
    body: form({ response_format: 'srt' }),
  });
  t.equal(raw.headers.get('content-type'), 'text/plain; charset=utf-8', 'srt as text/plain');
  t.equal(raw.headers.get('x-polygate-route'), 'oa/whisper-upstream');
});

function form(fields: Record<string, string>, bytes: Uint8Array = tone, name = 'tone.wav'): FormData {
  const f = new FormData();
  f.append('model', 'whisper-1');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  f.append('file', new Blob([new Uint8Array(bytes)], { type: 'audio/wav' }), name);
  return f;
}

t.test('the upstream receives the file’s bytes and every field, model rewritten', async (t) => {
  await client.audio.transcriptions.create({
    model: 'whisper-1',
    file: await toFile(tone, 'tone.wav', { type: 'audio/wav' }),
    language: 'de',
    prompt: 'Ein Ton.',
    temperature: 0.3,
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
  });
  const r = last();
  t.equal(r.path, '/v1/audio/transcriptions');
  t.equal(r.headers.authorization, `Bearer ${up.key}`);
  t.equal(r.files?.length, 1);
  t.match(r.files?.[0], { field: 'file', filename: 'tone.wav', type: 'audio/wav' });
  t.same(r.files?.[0].bytes, tone);
  t.same(r.fields, [
    ['model', 'whisper-upstream'],
    ['language', 'de'],
    ['prompt', 'Ein Ton.'],
    ['response_format', 'verbose_json'],
    ['temperature', '0.3'],
    ['timestamp_granularities[]', 'word'],
    ['timestamp_granularities[]', 'segment'],
  ]);
  t.equal(Number(r.headers['content-length']), r.raw.length, 'sent with an exact content-length');
});

t.test('a large upload is streamed through unchanged', async (t) => {
  // 40 s of 24 kHz 16-bit mono: about 1.9 MB.
  const samples = Buffer.alloc(24000 * 2 * 40);
  for (let i = 0; i < samples.length / 2; i++) samples.writeInt16LE(Math.round(8000 * Math.sin(i / 7)), i * 2);
  const header = Buffer.from(tone.subarray(0, 44));
  header.writeUInt32LE(36 + samples.length, 4);
  header.writeUInt32LE(samples.length, 40);
  const big = Buffer.concat([header, samples]);
  await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(big, 'long.wav') });
  t.same(last().files?.[0].bytes, big);
});

t.test('translations relay to /audio/translations', async (t) => {
  const out = await client.audio.translations.create({
    model: 'whisper-1',
    file: await toFile(tone, 'tone.wav'),
    prompt: 'English.',
  });
  t.equal(out.text, defaultTranscript);
  t.equal(last().path, '/v1/audio/translations');
  t.same(last().fields, [
    ['model', 'whisper-upstream'],
    ['prompt', 'English.'],
    ['response_format', 'json'],
  ]);
});

t.test('upstream errors reach the client in the family’s shape', async (t) => {
  up.script({ kind: 'error', status: 429, message: 'Rate limit reached for tts-1', retryAfter: 3 });
  const limited = await client.audio.speech
    .create({ model: 'tts-1', input: 'Hi.', voice: 'alloy' })
    .catch((e: unknown) => e);
  t.ok(limited instanceof OpenAI.RateLimitError);
  t.equal((limited as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'), '3');
  up.script({
    kind: 'error',
    status: 400,
    message: 'Audio file might be corrupted or unsupported',
    param: 'file',
    code: 'invalid_value',
  });
  const bad = await client.audio.transcriptions
    .create({ model: 'whisper-1', file: await toFile(tone, 'tone.wav') })
    .catch((e: unknown) => e);
  t.match(bad, { status: 400, param: 'file' });
  t.match((bad as Error).message, /corrupted/);
});

t.test('an upstream that refuses the gateway’s key is a 502, the key never shown', async (t) => {
  const e = await client.audio.speech
    .create({ model: 'tts-badkey', input: 'Hi.', voice: 'alloy' })
    .catch((x: unknown) => x);
  t.match(e, { status: 502 });
  t.notMatch((e as Error).message, /sk-not-the/);
});

t.test('an unreachable first route falls back to the next', async (t) => {
  const res = await speakWav(client, 'tts-fallback', 'Hi.');
  t.equal(res.headers.get('x-polygate-route'), 'oa/tts-1');
  t.same(Buffer.from(await res.arrayBuffer()), speechFixture('wav'));
});

t.test('metrics label the relay and count audio seconds', async (t) => {
  t.ok(
    (await metricValue(gw, 'polygate_requests_total', {
      family: 'audio',
      upstream_format: 'openai-audio',
      provider: 'oa',
      mode: 'passthrough',
      outcome: 'ok',
    })) >= 10,
  );
  const out = await metricValue(gw, 'polygate_audio_seconds_total', { provider: 'oa', direction: 'out' });
  t.ok(out >= 0.3, `pcm and wav answers counted (${out}s)`);
  const seconds = await metricValue(gw, 'polygate_audio_seconds_total', { provider: 'oa', direction: 'in' });
  t.ok(seconds >= 0.29 * 8 + 40, `uploads measured with ffprobe, the 40 s one included (${seconds}s)`);
});
