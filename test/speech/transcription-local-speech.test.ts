// Done-when: the default config listens with no keys. polygate synthesizes a known sentence, and
// the openai SDK transcribes that audio back through local-speech in every response format.
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { DEMO_KEY, metricValue, probe, startDefaultGateway, wordRecall } from './speech-test-helpers.ts';

const gw = await startDefaultGateway();
t.teardown(() => gw.stop());
const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: DEMO_KEY, maxRetries: 0 });

const sentence = 'We need to go home now and have dinner with our family.';
const speech = Buffer.from(
  await (await client.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'alloy' })).arrayBuffer(),
);
const seconds = probe(speech).duration;
const file = () => toFile(speech, 'dinner.mp3', { type: 'audio/mpeg' });
const srtCue = /^(\d+)\n(\d\d):(\d\d):(\d\d),(\d{3}) --> (\d\d):(\d\d):(\d\d),(\d{3})\n(.+)\n$/;
const vttCue = /^(\d\d):(\d\d):(\d\d)\.(\d{3}) --> (\d\d):(\d\d):(\d\d)\.(\d{3})\n(.+)\n$/;
const at = (h: string, m: string, s: string, ms: string): number =>
  Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;

t.test('json: most of the sentence comes back; a prompt is dropped with a warning', async (t) => {
  const { data: out, response } = await client.audio.transcriptions
    .create({ model: 'whisper-1', file: await file(), prompt: 'Dinner talk.' })
    .withResponse();
  t.ok(wordRecall(sentence, out.text) >= 0.6, `heard "${out.text}"`);
  t.match(
    response.headers.get('x-polygate-warnings'),
    /^prompt: provider 'speech' \(local-speech\) cannot be guided by a prompt/,
  );
  t.equal(response.headers.get('x-polygate-route'), 'speech/pocketsphinx');
  t.same(
    (out as { usage?: unknown }).usage,
    { type: 'duration', seconds: Math.ceil(seconds) },
    'whole seconds of input, rounded up',
  );
});

t.test('text, srt and vtt: plain text with real cue timings', async (t) => {
  const [text, srt, vtt] = await Promise.all(
    (['text', 'srt', 'vtt'] as const).map(async (response_format) =>
      client.audio.transcriptions.create({ model: 'whisper-1', file: await file(), response_format }),
    ),
  );
  t.ok(wordRecall(sentence, text) >= 0.6, `text: "${text.trim()}"`);
  t.ok(text.endsWith('\n'));

  const cues = srt
    .trim()
    .split('\n\n')
    .map((c) => srtCue.exec(`${c}\n`));
  t.ok(cues.length >= 1 && cues.every(Boolean), `srt cues: ${JSON.stringify(srt)}`);
  cues.forEach((m, i) => {
    if (!m) return;
    t.equal(Number(m[1]), i + 1, 'cues numbered from 1');
    const start = at(m[2], m[3], m[4], m[5]);
    const end = at(m[6], m[7], m[8], m[9]);
    t.ok(start >= 0 && end > start && end <= seconds + 0.05, `cue ${start} → ${end} inside ${seconds}s`);
  });
  t.ok(wordRecall(sentence, cues.map((m) => m?.[10] ?? '').join(' ')) >= 0.6);

  t.ok(vtt.startsWith('WEBVTT\n\n'));
  const vcues = vtt
    .slice('WEBVTT\n\n'.length)
    .trim()
    .split('\n\n')
    .map((c) => vttCue.exec(`${c}\n`));
  t.ok(vcues.length >= 1 && vcues.every(Boolean), `vtt cues: ${JSON.stringify(vtt)}`);
  const last = vcues.at(-1);
  if (last)
    t.ok(at(last[5], last[6], last[7], last[8]) > seconds / 2, 'the last cue ends in the second half of the audio');
});

t.test('verbose_json with word and segment timestamps', async (t) => {
  const v = await client.audio.transcriptions.create({
    model: 'whisper-1',
    file: await file(),
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
  });
  t.equal((v as { task?: string }).task, 'transcribe');
  t.equal(v.language, 'english');
  t.ok(Math.abs(v.duration - seconds) < 0.1, `duration ${v.duration} ≈ ${seconds}`);
  t.ok(wordRecall(sentence, v.text) >= 0.6);
  t.ok((v.segments?.length ?? 0) >= 1);
  for (const s of v.segments ?? []) {
    t.match(s, {
      id: Number,
      seek: Number,
      start: Number,
      end: Number,
      text: String,
      tokens: Array,
      temperature: 0,
      avg_logprob: Number,
      compression_ratio: Number,
      no_speech_prob: Number,
    });
    t.ok(s.tokens.length > 0 && s.tokens.every(Number.isInteger));
    t.ok(s.avg_logprob <= 0 && s.no_speech_prob >= 0 && s.no_speech_prob <= 1);
  }
  const words = v.words ?? [];
  t.ok(words.length >= 6, `${words.length} words`);
  t.ok(
    words.every((w, i) => w.end > w.start && (i === 0 || w.start >= words[i - 1].end)),
    'word times are ordered and non-overlapping',
  );
  t.equal(words.map((w) => w.word).join(' '), v.text, 'the words are the text');
});

t.test('translation of English audio is its English transcript', async (t) => {
  // The SDK types a translation as {text}; verbose_json carries the verbose fields.
  const out = (await client.audio.translations.create({
    model: 'whisper-1',
    file: await file(),
    response_format: 'verbose_json',
  })) as OpenAI.Audio.TranslationVerbose & {
    task?: string;
    words?: unknown;
  };
  t.equal(out.language, 'english');
  t.ok(wordRecall(sentence, out.text) >= 0.6, `heard "${out.text}"`);
  t.equal(out.task, 'translate');
  t.ok((out.segments?.length ?? 0) >= 1, 'verbose_json carries segments by default');
  t.equal(out.words, undefined, 'and no words');
});

t.test('metrics: seconds of audio in, per provider', async (t) => {
  // Six uploads of the sentence; decoded length, so an mp3's encoder padding is not counted.
  const counted = await metricValue(gw, 'polygate_audio_seconds_total', { provider: 'speech', direction: 'in' });
  t.ok(Math.abs(counted - 6 * seconds) < 6 * 0.1, `${counted}s for 6 × ${seconds}s`);
});
