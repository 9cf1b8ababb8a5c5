// Every family B rule through a running polygate: one request per rule, each answered with the
// family's error body {error: {message, type, param, code}} naming the field.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import t, { type Test } from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, TEST_KEY } from '../helpers/start-gateway.ts';
import { fixtureDir } from '../emulators/openai-audio-upstream.ts';
import { localSpeechConfig } from './speech-test-helpers.ts';

const uploadLimit = 64 * 1024;
const gw = await startInProcessGateway(localSpeechConfig({ limits: { max_upload_bytes: uploadLimit } }));
t.teardown(() => gw.stop());

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };
const auth = { authorization: `Bearer ${TEST_KEY}` };
const tone = readFileSync(join(fixtureDir, 'tone-0.3s.wav'));

async function speech(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: ErrorBody }> {
  const res = await fetch(`${gw.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as ErrorBody };
}

type Part = [string, string] | [string, Uint8Array, string];
async function upload(
  path: 'transcriptions' | 'translations',
  parts: Part[],
  headers: Record<string, string> = auth,
): Promise<{ status: number; body: ErrorBody }> {
  const form = new FormData();
  for (const p of parts) {
    if (p.length === 2) form.append(p[0], p[1]);
    else form.append(p[0], new Blob([new Uint8Array(p[1])]), p[2]);
  }
  const res = await fetch(`${gw.url}/v1/audio/${path}`, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as ErrorBody };
}

const okSpeech = { model: 'tts-1', input: 'Hello.', voice: 'alloy' };
const file: Part = ['file', tone, 'tone.wav'];
const model: Part = ['model', 'whisper-1'];

const expectParam = (t: Test, r: { status: number; body: ErrorBody }, param: string, status = 400): void => {
  t.equal(r.status, status);
  t.equal(r.body.error.type, status === 403 ? 'permission_error' : 'invalid_request_error');
  t.equal(r.body.error.param, param);
  t.ok(r.body.error.message.includes(param), `message names ${param}: ${r.body.error.message}`);
};

t.test('the valid baselines pass', async (t) => {
  const res = await fetch(`${gw.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(okSpeech),
  });
  t.equal(res.status, 200);
  t.equal((await upload('transcriptions', [model, file])).status, 200);
});

const speechCases: Array<[string, unknown, string]> = [
  ['speech: model missing', { ...okSpeech, model: undefined }, 'model'],
  ['speech: input missing', { ...okSpeech, input: undefined }, 'input'],
  ['speech: input over 4096 characters', { ...okSpeech, input: 'a'.repeat(4097) }, 'input'],
  ['speech: voice missing', { ...okSpeech, voice: undefined }, 'voice'],
  ['speech: voice not a string', { ...okSpeech, voice: 7 }, 'voice'],
  ['speech: response_format unknown', { ...okSpeech, response_format: 'ogg' }, 'response_format'],
  ['speech: speed below 0.25', { ...okSpeech, speed: 0.24 }, 'speed'],
  ['speech: speed above 4.0', { ...okSpeech, speed: 4.1 }, 'speed'],
  ['speech: a speech-recognition model', { ...okSpeech, model: 'whisper-1' }, 'model'],
  ['speech: a chat model', { ...okSpeech, model: 'echo' }, 'model'],
  ['speech: sse streaming on local-speech', { ...okSpeech, stream_format: 'sse' }, 'stream_format'],
];
for (const [name, body, param] of speechCases) t.test(name, async (t) => expectParam(t, await speech(body), param));

const notAudio = new TextEncoder().encode('This is a text file, not audio at all.');
/** A WAV signature with nothing decodable behind it: passes the magic-byte check, fails ffmpeg. */
const brokenWav = Buffer.concat([Buffer.from('RIFF$\0\0\0WAVE', 'latin1'), Buffer.from('junk'.repeat(8))]);
const formCases: Array<[string, 'transcriptions' | 'translations', Part[], string]> = [
  ['transcription: file missing', 'transcriptions', [model], 'file'],
  ['transcription: file sent as a text field', 'transcriptions', [model, ['file', 'tone.wav']], 'file'],
  ['transcription: file name not an accepted format', 'transcriptions', [model, ['file', tone, 'tone.txt']], 'file'],
  [
    'transcription: file content not audio (checked by magic bytes)',
    'transcriptions',
    [model, ['file', notAudio, 'speech.mp3']],
    'file',
  ],
  [
    'transcription: file that looks like audio but cannot be decoded',
    'transcriptions',
    [model, ['file', brokenWav, 'broken.wav']],
    'file',
  ],
  ['transcription: model missing', 'transcriptions', [file], 'model'],
  ['transcription: model not the speech-recognition model', 'transcriptions', [['model', 'tts-1'], file], 'model'],
  ['transcription: language not ISO-639-1', 'transcriptions', [model, file, ['language', 'english']], 'language'],
  [
    'transcription: prompt sent as a file',
    'transcriptions',
    [model, file, ['prompt', notAudio, 'prompt.txt']],
    'prompt',
  ],
  [
    'transcription: response_format unknown',
    'transcriptions',
    [model, file, ['response_format', 'xml']],
    'response_format',
  ],
  ['transcription: temperature above 1', 'transcriptions', [model, file, ['temperature', '1.5']], 'temperature'],
  ['transcription: temperature below 0', 'transcriptions', [model, file, ['temperature', '-0.5']], 'temperature'],
  [
    'transcription: timestamp_granularities[] value unknown',
    'transcriptions',
    [model, file, ['response_format', 'verbose_json'], ['timestamp_granularities[]', 'sentence']],
    'timestamp_granularities',
  ],
  [
    'transcription: timestamp_granularities without verbose_json',
    'transcriptions',
    [model, file, ['timestamp_granularities[]', 'word']],
    'timestamp_granularities',
  ],
  ['transcription: streaming on local-speech', 'transcriptions', [model, file, ['stream', 'true']], 'stream'],
  ['translation: file missing', 'translations', [model], 'file'],
  ['translation: file content not audio', 'translations', [model, ['file', notAudio, 'speech.wav']], 'file'],
  ['translation: model missing', 'translations', [file], 'model'],
  [
    'translation: response_format unknown',
    'translations',
    [model, file, ['response_format', 'docx']],
    'response_format',
  ],
  ['translation: temperature above 1', 'translations', [model, file, ['temperature', '2']], 'temperature'],
  ['translation: non-English audio on local-speech', 'translations', [model, file, ['language', 'de']], 'language'],
];
for (const [name, path, parts, param] of formCases)
  t.test(name, async (t) => expectParam(t, await upload(path, parts), param));

t.test('an upload over limits.max_upload_bytes is 413, and the SDK reads the answer', async (t) => {
  // The SDK sends a content-length and keeps writing; polygate reads the rest away so the client
  // sees the 413 rather than a broken pipe.
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  for (const size of [uploadLimit + 1, 3 * uploadLimit]) {
    const big = Buffer.concat([tone, Buffer.alloc(size)]);
    const e = await client.audio.transcriptions
      .create({ model: 'whisper-1', file: await toFile(big, 'big.wav') })
      .catch((x: unknown) => x);
    t.ok(e instanceof OpenAI.APIError, `${size} bytes: an API error, not a connection error`);
    t.equal((e as InstanceType<typeof OpenAI.APIError>).status, 413);
    t.match((e as Error).message, /larger than this gateway accepts/);
  }
});

t.test('a chunked upload (no content-length) over the limit is 413 too', async (t) => {
  const form = new FormData();
  form.append('model', 'whisper-1');
  form.append('file', new Blob([tone, Buffer.alloc(uploadLimit)]), 'big.wav');
  const encoded = new Response(form);
  const res = await fetch(`${gw.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': encoded.headers.get('content-type') ?? '' },
    body: encoded.body,
    duplex: 'half',
  } as RequestInit);
  t.equal(res.status, 413);
  t.match(((await res.json()) as ErrorBody).error.message, /larger than this gateway accepts/);
});

t.test('unknown model: 404 model_not_found', async (t) => {
  const r = await speech({ ...okSpeech, model: 'tts-9' });
  t.equal(r.status, 404);
  t.same({ param: r.body.error.param, code: r.body.error.code }, { param: 'model', code: 'model_not_found' });
  const u = await upload('transcriptions', [['model', 'whisper-9'], file]);
  t.equal(u.status, 404);
});

t.test('a model outside the key’s allow-list: 403', async (t) => {
  expectParam(t, await speech(okSpeech, { authorization: `Bearer ${OTHER_KEY}` }), 'model', 403);
  expectParam(t, await upload('transcriptions', [model, file], { authorization: `Bearer ${OTHER_KEY}` }), 'model', 403);
});

t.test('no key or a wrong key: 401', async (t) => {
  const r = await speech(okSpeech, { authorization: 'Bearer sk-wrong-key-000' });
  t.equal(r.status, 401);
  t.equal(r.body.error.code, 'invalid_api_key');
  t.equal((await upload('translations', [model, file], {})).status, 401);
});

t.test('wrong content types and bad JSON', async (t) => {
  t.equal((await speech(JSON.stringify(okSpeech), { 'content-type': 'text/plain' })).status, 415);
  const u = await fetch(`${gw.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(u.status, 415);
  t.match(((await u.json()) as ErrorBody).error.message, /multipart\/form-data/);
  const bad = await speech('{"model": "tts-1",');
  t.equal(bad.status, 400);
  t.match(bad.body.error.message, /not valid JSON/);
});
