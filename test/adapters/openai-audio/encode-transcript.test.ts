// Each response_format's body from one transcript: JSON shapes of the API reference, SubRip and
// WebVTT cue timing, granularities choosing segments and words.
import t from 'tap';
import { encodeTranscript, timestamp } from '../../../adapters/openai-audio/index.ts';
import type { Transcript } from '../../../src/ir/transcription.ts';

const seg = (id: number, start: number, end: number, text: string) => ({
  id,
  start,
  end,
  text,
  tokens: [1, 2],
  temperature: 0,
  avgLogprob: -0.5,
  compressionRatio: 1.1,
  noSpeechProb: 0.1,
});
const transcript: Transcript = {
  task: 'transcribe',
  language: 'english',
  durationSeconds: 3723.4567,
  text: 'hello world goodbye',
  segments: [seg(0, 0.03, 1.39, 'hello world'), seg(1, 3600.5, 3723.25, 'goodbye')],
  words: [
    { word: 'hello', start: 0.03, end: 0.28 },
    { word: 'world', start: 0.29, end: 1.39 },
    { word: 'goodbye', start: 3600.5, end: 3723.25 },
  ],
};

t.test('json: text and whole-second duration usage', async (t) => {
  const e = encodeTranscript(transcript, 'json');
  t.equal(e.contentType, 'application/json');
  t.same(JSON.parse(e.body), { text: 'hello world goodbye', usage: { type: 'duration', seconds: 3724 } });
});

t.test('text: the text and a newline, as plain text', async (t) => {
  t.same(encodeTranscript(transcript, 'text'), {
    contentType: 'text/plain; charset=utf-8',
    body: 'hello world goodbye\n',
  });
});

t.test('srt: numbered cues with comma milliseconds', async (t) => {
  const e = encodeTranscript(transcript, 'srt');
  t.equal(e.contentType, 'text/plain; charset=utf-8');
  t.equal(e.body, '1\n00:00:00,030 --> 00:00:01,390\nhello world\n\n2\n01:00:00,500 --> 01:02:03,250\ngoodbye\n\n');
});

t.test('vtt: the WEBVTT header and dot milliseconds', async (t) => {
  t.equal(
    encodeTranscript(transcript, 'vtt').body,
    'WEBVTT\n\n00:00:00.030 --> 00:00:01.390\nhello world\n\n01:00:00.500 --> 01:02:03.250\ngoodbye\n\n',
  );
});

t.test('verbose_json: segments by default, with every field of the spec', async (t) => {
  const v = JSON.parse(encodeTranscript(transcript, 'verbose_json').body);
  t.equal(v.task, 'transcribe');
  t.equal(v.language, 'english');
  t.equal(v.duration, 3723.457);
  t.equal(v.words, undefined);
  t.same(v.segments[1], {
    id: 1,
    seek: 360050,
    start: 3600.5,
    end: 3723.25,
    text: 'goodbye',
    tokens: [1, 2],
    temperature: 0,
    avg_logprob: -0.5,
    compression_ratio: 1.1,
    no_speech_prob: 0.1,
  });
});

t.test('verbose_json: words only when only words are asked for, both when both are', async (t) => {
  const w = JSON.parse(encodeTranscript(transcript, 'verbose_json', ['word']).body);
  t.equal(w.segments, undefined);
  t.same(w.words[0], { word: 'hello', start: 0.03, end: 0.28 });
  const both = JSON.parse(encodeTranscript(transcript, 'verbose_json', ['word', 'segment']).body);
  t.equal(both.words.length, 3);
  t.equal(both.segments.length, 2);
});

t.test('translations never carry words', async (t) => {
  const v = JSON.parse(
    encodeTranscript({ ...transcript, task: 'translate' }, 'verbose_json', ['word', 'segment']).body,
  );
  t.equal(v.task, 'translate');
  t.equal(v.words, undefined);
});

t.test('silence: empty subtitles, still valid', async (t) => {
  const empty: Transcript = { ...transcript, text: '', segments: [], words: [] };
  t.equal(encodeTranscript(empty, 'srt').body, '');
  t.equal(encodeTranscript(empty, 'vtt').body, 'WEBVTT\n\n');
  t.same(JSON.parse(encodeTranscript(empty, 'json').body).text, '');
});

t.test('timestamps round to milliseconds and never go negative', async (t) => {
  t.equal(timestamp(59.9996, ','), '00:01:00,000');
  t.equal(timestamp(-1, '.'), '00:00:00.000');
});
