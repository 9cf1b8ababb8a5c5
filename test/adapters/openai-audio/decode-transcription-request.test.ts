// The transcription and translation form rules (spec family B "Transcription form fields"),
// each failure naming its field.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  decodeTranscriptionRequest,
  sniffBytes,
  type FormFilePart,
  type FormInput,
} from '../../../adapters/openai-audio/index.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { TranscriptionTask } from '../../../src/ir/transcription.ts';

const wavHead = readFileSync(join(import.meta.dirname, '../../fixtures/openai-audio/tone-0.3s.wav')).subarray(
  0,
  sniffBytes,
);
const wav = (over: Partial<FormFilePart> = {}): FormFilePart => ({
  path: '/tmp/x',
  filename: 'speech.wav',
  mediaType: 'audio/wav',
  size: 14444,
  head: wavHead,
  ...over,
});
const form = (
  fields: Array<[string, string]>,
  files: Array<[string, FormFilePart]> = [['file', wav()]],
): FormInput => ({ fields, files });
const base: Array<[string, string]> = [['model', 'whisper-1']];

const paramOf = (f: FormInput, task: TranscriptionTask = 'transcribe'): string | null => {
  try {
    decodeTranscriptionRequest(task, f);
  } catch (e) {
    if (e instanceof GatewayError && e.kind === 'invalid-request') return e.param;
    throw e;
  }
  return null;
};

t.test('defaults: json, temperature and granularities left unset', async (t) => {
  const r = decodeTranscriptionRequest('transcribe', form(base));
  t.same(r, {
    task: 'transcribe',
    model: 'whisper-1',
    format: 'json',
    extra: [],
    file: { path: '/tmp/x', filename: 'speech.wav', mediaType: 'audio/wav', size: 14444, container: 'wav' },
  });
});

t.test('all fields, with the SDK’s timestamp_granularities[] spelling', async (t) => {
  const r = decodeTranscriptionRequest(
    'transcribe',
    form([
      ...base,
      ['language', 'EN'],
      ['prompt', 'Names: Ada.'],
      ['response_format', 'verbose_json'],
      ['temperature', '0.4'],
      ['timestamp_granularities[]', 'word'],
      ['timestamp_granularities[]', 'segment'],
      ['include[]', 'logprobs'],
    ]),
  );
  t.equal(r.language, 'en');
  t.equal(r.prompt, 'Names: Ada.');
  t.equal(r.format, 'verbose_json');
  t.equal(r.temperature, 0.4);
  t.same(r.granularities, ['word', 'segment']);
  t.same(r.extra, [['include[]', 'logprobs']], 'unknown fields kept for same-format upstreams');
});

t.test('plain timestamp_granularities, comma-separated, is accepted too', async (t) => {
  const r = decodeTranscriptionRequest(
    'transcribe',
    form([...base, ['response_format', 'verbose_json'], ['timestamp_granularities', 'word,segment']]),
  );
  t.same(r.granularities, ['word', 'segment']);
});

t.test('translations: granularities are not a translation field', async (t) => {
  const r = decodeTranscriptionRequest('translate', form([...base, ['timestamp_granularities[]', 'word']]));
  t.equal(r.granularities, undefined);
  t.same(r.extra, [['timestamp_granularities[]', 'word']]);
});

const cases: Array<[string, FormInput, string]> = [
  ['file missing', form(base, []), 'file'],
  ['file sent as a text field', form([...base, ['file', 'speech.wav']], []), 'file'],
  [
    'two files',
    form(base, [
      ['file', wav()],
      ['file', wav()],
    ]),
    'file',
  ],
  ['empty file', form(base, [['file', wav({ size: 0, head: new Uint8Array(0) })]]), 'file'],
  ['file name with an unsupported extension', form(base, [['file', wav({ filename: 'speech.txt' })]]), 'file'],
  [
    'file content that is not audio',
    form(base, [
      ['file', wav({ filename: 'speech.mp3', head: new TextEncoder().encode('not audio at all, just text') })],
    ]),
    'file',
  ],
  [
    'a file in another field',
    form(base, [
      ['file', wav()],
      ['extra', wav()],
    ]),
    'extra',
  ],
  ['model missing', form([]), 'model'],
  ['model given twice', form([...base, ['model', 'whisper-2']]), 'model'],
  ['language not ISO-639-1', form([...base, ['language', 'english']]), 'language'],
  ['language unknown code', form([...base, ['language', 'zz']]), 'language'],
  [
    'prompt sent as a file',
    form(base, [
      ['file', wav()],
      ['prompt', wav()],
    ]),
    'prompt',
  ],
  ['response_format unknown', form([...base, ['response_format', 'xml']]), 'response_format'],
  ['temperature below 0', form([...base, ['temperature', '-0.1']]), 'temperature'],
  ['temperature above 1', form([...base, ['temperature', '1.5']]), 'temperature'],
  ['temperature not a number', form([...base, ['temperature', 'warm']]), 'temperature'],
  [
    'timestamp_granularities unknown value',
    form([...base, ['response_format', 'verbose_json'], ['timestamp_granularities[]', 'sentence']]),
    'timestamp_granularities',
  ],
  [
    'timestamp_granularities without verbose_json',
    form([...base, ['timestamp_granularities[]', 'word']]),
    'timestamp_granularities',
  ],
  ['stream not a boolean', form([...base, ['stream', 'yes']]), 'stream'],
];
for (const [name, f, param] of cases) {
  t.test(name, async (t) => t.equal(paramOf(f), param));
}
