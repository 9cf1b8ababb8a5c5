// The emulator is honest: the openai SDK, pointed straight at it, gets what it would get from
// OpenAI (binary speech, each transcript format parsed, typed errors), and the emulator records
// exactly what the SDK sent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { speakEachFormat, transcribeEachFormat } from '../helpers/openai-audio.ts';
import { defaultTranscript, fixtureDir, startOpenAIAudioUpstream } from './openai-audio-upstream.ts';

const up = await startOpenAIAudioUpstream();
t.teardown(() => up.close());
const client = new OpenAI({ baseURL: up.url, apiKey: up.key, maxRetries: 0 });
const upload = readFileSync(join(fixtureDir, 'tone-0.3s.wav'));

t.test('speech answers the audio bytes of each format with its content type', async (t) => {
  await speakEachFormat(t, client, { model: 'tts-1', input: 'hi', voice: 'alloy' });
  const sent = up.requests.at(-1)!;
  t.equal(sent.path, '/v1/audio/speech');
  t.same(sent.json, { model: 'tts-1', input: 'hi', voice: 'alloy', response_format: 'pcm' });
});

t.test('transcriptions: the SDK parses every response format', async (t) => {
  const { json, text, srt, vtt, verbose } = await transcribeEachFormat(client, upload, ['word', 'segment']);
  t.equal(json.text, defaultTranscript);
  t.equal(text, `${defaultTranscript}\n`);
  t.match(srt, /^1\n00:00:00,000 --> 00:00:02,500\n/);
  t.match(vtt, /^WEBVTT\n\n00:00:00\.000 --> /);
  t.equal((verbose as { task?: string }).task, 'transcribe');
  t.equal(verbose.words?.length, defaultTranscript.split(' ').length);
  t.equal(verbose.segments?.length, 1);
});

t.test('the emulator records the multipart upload exactly: file bytes, name, fields', async (t) => {
  up.reset();
  await client.audio.transcriptions.create({
    model: 'whisper-1',
    file: await toFile(upload, 'tone.wav', { type: 'audio/wav' }),
    language: 'en',
    prompt: 'A tone.',
    temperature: 0.2,
    response_format: 'verbose_json',
    timestamp_granularities: ['word'],
  });
  const r = up.requests[0];
  t.equal(r.path, '/v1/audio/transcriptions');
  t.equal(r.headers.authorization, `Bearer ${up.key}`);
  t.match(String(r.headers['content-type']), /^multipart\/form-data; boundary=/);
  t.equal(r.files?.length, 1);
  t.equal(r.files?.[0].filename, 'tone.wav');
  t.same(r.files?.[0].bytes, upload);
  const fields = Object.fromEntries(r.fields ?? []);
  t.same(fields, {
    model: 'whisper-1',
    language: 'en',
    prompt: 'A tone.',
    temperature: '0.2',
    response_format: 'verbose_json',
    'timestamp_granularities[]': 'word',
  });
});

t.test('translations answer in English', async (t) => {
  const out = await client.audio.translations.create({ model: 'whisper-1', file: await toFile(upload, 'tone.wav') });
  t.equal(out.text, defaultTranscript);
  t.equal(up.requests.at(-1)?.path, '/v1/audio/translations');
});

t.test('errors reach the SDK as its typed errors', async (t) => {
  const wrongKey = new OpenAI({ baseURL: up.url, apiKey: 'sk-wrong-key-123456', maxRetries: 0 });
  await t.rejects(wrongKey.audio.speech.create({ model: 'tts-1', input: 'hi', voice: 'alloy' }), {
    status: 401,
    code: 'invalid_api_key',
  });
  up.script({ kind: 'error', status: 429, message: 'Rate limit reached', retryAfter: 3 });
  const limited = await client.audio.speech
    .create({ model: 'tts-1', input: 'hi', voice: 'alloy' })
    .catch((e: unknown) => e);
  t.ok(limited instanceof OpenAI.RateLimitError, 'a RateLimitError');
  t.equal((limited as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'), '3');
  const badVoice = await client.audio.speech
    .create({ model: 'tts-1', input: 'hi', voice: 'nobody' as 'alloy' })
    .catch((e: unknown) => e);
  t.match(badVoice, { status: 400, param: 'voice' });
});
