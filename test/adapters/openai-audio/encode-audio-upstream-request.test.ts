// Towards an OpenAI-compatible upstream only the model is rewritten; fields polygate does not
// model travel unchanged, in the SDK's own spelling.
import t from 'tap';
import {
  encodeSpeechUpstreamRequest,
  encodeTranscriptionUpstreamRequest,
} from '../../../adapters/openai-audio/index.ts';
import type { TranscriptionRequest } from '../../../src/ir/transcription.ts';

t.test('speech: the route’s model, every client field, unknown fields kept', async (t) => {
  const enc = encodeSpeechUpstreamRequest(
    {
      model: 'tts-1',
      input: 'Hi.',
      voice: 'nova',
      format: 'flac',
      speed: 1.5,
      instructions: 'Warm.',
      streamFormat: 'audio',
      extra: { vendor_knob: 1, model: 'ignored' },
    },
    'tts-1-hd',
  );
  t.equal(enc.path, '/audio/speech');
  t.same(enc.body, {
    model: 'tts-1-hd',
    input: 'Hi.',
    voice: 'nova',
    response_format: 'flac',
    speed: 1.5,
    instructions: 'Warm.',
    stream_format: 'audio',
    vendor_knob: 1,
  });
});

const file = {
  path: '/tmp/spool/abc',
  filename: 'talk.m4a',
  mediaType: 'audio/mp4',
  size: 1234,
  container: 'mp4' as const,
};

t.test('transcription: fields in order, granularities as repeated [] fields, file last', async (t) => {
  const req: TranscriptionRequest = {
    task: 'transcribe',
    model: 'whisper-1',
    file,
    language: 'de',
    prompt: 'Hallo.',
    format: 'verbose_json',
    temperature: 0,
    granularities: ['word', 'segment'],
    extra: [['include[]', 'logprobs']],
  };
  const enc = encodeTranscriptionUpstreamRequest(req, 'whisper-large');
  t.equal(enc.path, '/audio/transcriptions');
  t.same(enc.fields, [
    ['model', 'whisper-large'],
    ['language', 'de'],
    ['prompt', 'Hallo.'],
    ['response_format', 'verbose_json'],
    ['temperature', '0'],
    ['timestamp_granularities[]', 'word'],
    ['timestamp_granularities[]', 'segment'],
    ['include[]', 'logprobs'],
  ]);
  t.same(enc.file, { field: 'file', path: '/tmp/spool/abc', filename: 'talk.m4a', mediaType: 'audio/mp4', size: 1234 });
});

t.test('translation: its own path, defaults not invented', async (t) => {
  const enc = encodeTranscriptionUpstreamRequest(
    { task: 'translate', model: 'whisper-1', file, format: 'json', extra: [] },
    'whisper-1',
  );
  t.equal(enc.path, '/audio/translations');
  t.same(enc.fields, [
    ['model', 'whisper-1'],
    ['response_format', 'json'],
  ]);
});
