// Fuzzing every decoder of the openai-audio adapter (family B): the speech body, the transcription
// and translation form (fields, file parts and the file's first bytes), the upstream's error
// answers, then the upstream encoders and the transcript encoder. Any input gives a value or a
// GatewayError.
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import t from 'tap';
import {
  decodeAudioUpstreamError,
  decodeSpeechRequest,
  decodeTranscriptionRequest,
  encodeSpeechUpstreamRequest,
  encodeTranscript,
  encodeTranscriptionUpstreamRequest,
  extensionOf,
  sniffAudioContainer,
  sniffBytes,
  type FormFilePart,
  type FormInput,
} from '../../adapters/openai-audio/index.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { transcriptFormats, type Transcript } from '../../src/ir/transcription.ts';
import { fuzz } from './chat-fuzz.ts';
import { fixtureJsons } from './fixtures.ts';
import { bodies, nastyValue } from './mutate-json.ts';

const dir = new URL('../fixtures/openai-audio/', import.meta.url);
const tones = readdirSync(dir).filter((f) => f.startsWith('tone-0.3s.'));
/** The first bytes of real audio files of every container, as the pipeline hands them over. */
const heads = tones.map((f) => new Uint8Array(readFileSync(new URL(f, dir)).subarray(0, sniffBytes)));

const head: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.constantFrom(...heads),
  fc
    .tuple(fc.constantFrom(...heads), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat({ max: sniffBytes }))
    .map(([h, at, byte, keep]) => {
      const out = h.slice(0, keep);
      if (out.length > 0) out[at % out.length] = byte;
      return out;
    }),
  fc.uint8Array({ maxLength: sniffBytes }),
);
const filename = fc.oneof(
  fc.constantFrom(...tones, 'a.MP3', '.mp3', 'mp3', 'a.', '', 'a.mp3.exe', 'x'.repeat(10_000) + '.wav', 'a\u0000.wav'),
  fc.string({ maxLength: 20 }),
);
const filePart: fc.Arbitrary<FormFilePart> = fc.record({
  path: fc.constant('/tmp/upload-1'),
  filename,
  mediaType: fc.constantFrom('audio/mpeg', 'application/octet-stream', ''),
  size: fc.oneof(fc.constantFrom(0, 1, 4_800, 26_214_400), fc.nat()),
  head,
});
const fieldNames = [
  'model',
  'language',
  'prompt',
  'response_format',
  'temperature',
  'stream',
  'timestamp_granularities[]',
  'timestamp_granularities',
  'file',
  'chunking_strategy',
  'include[]',
];
const fieldValue = fc.oneof(
  fc.constantFrom(
    'whisper-1',
    'en',
    'EN',
    'xx',
    'english',
    'json',
    'verbose_json',
    'srt',
    'vtt',
    'text',
    '0',
    '1',
    '0.5',
    '-0',
    '1e999',
    'NaN',
    ' ',
    '',
    'true',
    'false',
    'word',
    'segment',
    'word,segment',
    ',',
    'auto',
  ),
  fc.string({ maxLength: 20 }),
);
const form: fc.Arbitrary<FormInput> = fc.record({
  fields: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...fieldNames), fc.string({ maxLength: 8 })), fieldValue), {
    maxLength: 8,
  }),
  files: fc.oneof(
    { weight: 4, arbitrary: filePart.map((f): Array<[string, FormFilePart]> => [['file', f]]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom('file', 'audio', ''), filePart), { maxLength: 3 }) },
  ),
});
/** A valid form with the model first, as the SDKs send it, most of the time. */
const forms: fc.Arbitrary<FormInput> = fc.oneof(
  form.map((f) => ({ ...f, fields: [['model', 'whisper-1'] as [string, string], ...f.fields] })),
  form,
);

t.test('speech: decodeSpeechRequest, then the upstream request', async (t) => {
  fuzz(t, 'speech body', bodies(fixtureJsons('openai-audio', '.request.json')), (b) =>
    JSON.stringify(encodeSpeechUpstreamRequest(decodeSpeechRequest(b), 'tts-1-hd')),
  );
});

t.test('transcription and translation: decodeTranscriptionRequest, then the upstream form', async (t) => {
  fuzz(
    t,
    'transcription form',
    fc.tuple(fc.constantFrom('transcribe' as const, 'translate' as const), forms),
    ([task, f]) => {
      const req = decodeTranscriptionRequest(task, f);
      const up = encodeTranscriptionUpstreamRequest(req, 'whisper-1');
      if (!up.fields.every(([k, v]) => typeof k === 'string' && typeof v === 'string'))
        throw new TypeError('a form field that is not text');
    },
  );
  fuzz(t, 'sniffAudioContainer and extensionOf', fc.tuple(head, filename), ([h, name]) => {
    sniffAudioContainer(h);
    extensionOf(name);
  });
});

t.test('upstream errors: a GatewayError for any status and body', async (t) => {
  const errors = [
    { error: { message: 'Invalid file format.', type: 'invalid_request_error', param: 'file', code: null } },
    { error: 'text' },
    { detail: 'Not Found' },
  ];
  fuzz(
    t,
    'decodeAudioUpstreamError',
    fc.tuple(
      fc.oneof(fc.constantFrom(400, 401, 403, 404, 413, 429, 500, 503), fc.integer()),
      fc.oneof(bodies(errors), fc.string(), nastyValue as fc.Arbitrary<unknown>),
      fc.option(fc.double()),
    ),
    ([st, b, ra]) => {
      const err = decodeAudioUpstreamError(st, b, ra ?? undefined);
      if (!(err instanceof GatewayError))
        throw new TypeError('decodeAudioUpstreamError returned something other than a GatewayError');
    },
  );
});

t.test('transcripts: every format encodes any transcript the speech runtime can produce', async (t) => {
  const n = fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -1, 1e9, 359_999.9995));
  const transcript: fc.Arbitrary<Transcript> = fc.record({
    task: fc.constantFrom('transcribe' as const, 'translate' as const),
    language: fc.string({ maxLength: 10 }),
    durationSeconds: n,
    text: fc.string({ maxLength: 40 }),
    segments: fc.array(
      fc.record({
        id: fc.nat(),
        start: n,
        end: n,
        text: fc.string({ maxLength: 20 }),
        tokens: fc.array(fc.nat(), { maxLength: 4 }),
        temperature: n,
        avgLogprob: n,
        compressionRatio: n,
        noSpeechProb: n,
      }),
      { maxLength: 4 },
    ),
    words: fc.array(fc.record({ word: fc.string({ maxLength: 8 }), start: n, end: n }), { maxLength: 4 }),
  });
  const granularities = fc.subarray(['word', 'segment'] as const);
  fuzz(
    t,
    'encodeTranscript',
    fc.tuple(transcript, fc.constantFrom(...transcriptFormats), granularities),
    ([tr, format, g]) => {
      const out = encodeTranscript(tr, format, g);
      if (typeof out.body !== 'string') throw new TypeError('a transcript body that is not text');
    },
  );
});
