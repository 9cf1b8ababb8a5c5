// Done-when: the default config speaks with no keys. openai SDK → polygate → local-speech, every
// response format checked with ffprobe; duration grows with the text and shrinks with speed.
import OpenAI from 'openai';
import t from 'tap';
import { DEMO_KEY, metricValue, probe, startDefaultGateway } from './speech-test-helpers.ts';

const gw = await startDefaultGateway();
t.teardown(() => gw.stop());
const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: DEMO_KEY, maxRetries: 0 });

const sentence = 'The weather is fine today.';
const speak = async (
  p: Partial<OpenAI.Audio.SpeechCreateParams> = {},
): Promise<{ bytes: Buffer; type: string | null }> => {
  const res = await client.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'alloy', ...p });
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
};
const seconds = async (p: Partial<OpenAI.Audio.SpeechCreateParams>): Promise<number> =>
  probe((await speak({ response_format: 'wav', ...p })).bytes).duration;

t.test('every response format decodes as its codec, mono at 24 kHz', async (t) => {
  const expected = {
    mp3: { codec: 'mp3', type: 'audio/mpeg' },
    opus: { codec: 'opus', type: 'audio/opus' },
    aac: { codec: 'aac', type: 'audio/aac' },
    flac: { codec: 'flac', type: 'audio/flac' },
    wav: { codec: 'pcm_s16le', type: 'audio/wav' },
    pcm: { codec: 'pcm_s16le', type: 'audio/pcm' },
  } as const;
  const wavSeconds = await seconds({});
  for (const [format, want] of Object.entries(expected)) {
    const { bytes, type } = await speak({ response_format: format as keyof typeof expected });
    t.equal(type, want.type, `${format} content-type`);
    const p = probe(bytes, { rawPcm: format === 'pcm' });
    t.equal(p.codec, want.codec, `${format} codec`);
    t.equal(p.channels, 1, `${format} mono`);
    // Opus always decodes at 48 kHz whatever it was encoded from.
    if (format !== 'opus') t.equal(p.sampleRate, 24000, `${format} 24 kHz`);
    // Encoders pad a frame or two; the speech itself is the same length in every format.
    t.ok(Math.abs(p.duration - wavSeconds) < 0.15, `${format} lasts ${p.duration}s, like the wav (${wavSeconds}s)`);
  }
});

t.test('pcm is raw 16-bit little-endian samples: 48000 bytes a second, no header', async (t) => {
  const pcm = (await speak({ response_format: 'pcm' })).bytes;
  const wav = (await speak({ response_format: 'wav' })).bytes;
  t.equal(pcm.length % 2, 0);
  t.same(pcm, wav.subarray(wav.length - pcm.length), 'the wav file is a header plus exactly these samples');
  t.ok(Math.abs(pcm.length / 48000 - probe(wav).duration) < 0.01);
});

t.test('a longer text takes longer to say', async (t) => {
  const short = await seconds({ input: 'Good morning.' });
  const long = await seconds({
    input: 'Good morning. The weather is fine today, and we will walk to the market after breakfast.',
  });
  t.ok(long > short * 2, `${long}s > 2 × ${short}s`);
});

t.test('speed scales the duration down, across the whole range', async (t) => {
  const [quarter, half, normal, double, four] = await Promise.all(
    [0.25, 0.5, 1, 2, 4].map((speed) => seconds({ speed })),
  );
  t.ok(
    quarter > half && half > normal && normal > double && double > four,
    `${quarter} > ${half} > ${normal} > ${double} > ${four}`,
  );
  // Pace is proportional to speed; leading and trailing silence keep it from being exact.
  t.ok(Math.abs(half / normal - 2) < 0.35, `0.5× is about twice as long (${half / normal})`);
  t.ok(Math.abs(normal / double - 2) < 0.35, `2× is about half as long (${normal / double})`);
  t.ok(quarter / four > 8, `0.25× vs 4× (${quarter / four})`);
});

t.test('the six voices sound different', async (t) => {
  const voices = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'] as const;
  const outs = await Promise.all(
    voices.map(async (voice) => (await speak({ voice, response_format: 'wav' })).bytes.toString('base64')),
  );
  t.equal(new Set(outs).size, 6);
});

t.test('tts-1-hd is served too', async (t) => {
  const res = await client.audio.speech.create({
    model: 'tts-1-hd',
    input: 'Hello.',
    voice: 'nova',
    response_format: 'flac',
  });
  t.equal(res.headers.get('x-polygate-route'), 'speech/espeak');
  t.equal(probe(Buffer.from(await res.arrayBuffer())).codec, 'flac');
});

t.test('a voice newer than polygate is spoken with alloy, and said so (issue #29)', async (t) => {
  const { response } = await client.audio.speech
    .create({ model: 'tts-1', input: 'Hi.', voice: 'marin' as 'alloy', response_format: 'wav' })
    .withResponse();
  t.equal(response.status, 200);
  t.match(response.headers.get('x-polygate-warnings'), /^voice: 'marin' is newer than polygate; spoken with 'alloy'/);
});

t.test('instructions cannot be followed by espeak: dropped, and said so', async (t) => {
  const { response } = await client.audio.speech
    .create({ model: 'tts-1', input: 'Hi.', voice: 'echo', instructions: 'Sound cheerful.' })
    .withResponse();
  t.match(
    response.headers.get('x-polygate-warnings'),
    /^instructions: provider 'speech' \(local-speech\) has no style control/,
  );
  t.ok(
    (await metricValue(gw, 'polygate_translation_warnings_total', {
      inbound_format: 'openai-audio',
      upstream_format: 'local-speech',
      field: 'instructions',
    })) >= 1,
  );
});

t.test('metrics: characters synthesized and seconds of audio out, per provider', async (t) => {
  const chars = await metricValue(gw, 'polygate_speech_characters_total', { provider: 'speech' });
  const out = await metricValue(gw, 'polygate_audio_seconds_total', { provider: 'speech', direction: 'out' });
  const wav = (await speak({ input: 'Twelve chars', response_format: 'wav' })).bytes;
  t.equal(await metricValue(gw, 'polygate_speech_characters_total', { provider: 'speech' }), chars + 12);
  const added = (await metricValue(gw, 'polygate_audio_seconds_total', { provider: 'speech', direction: 'out' })) - out;
  t.ok(Math.abs(added - probe(wav).duration) < 0.05, `counted ${added}s`);
  t.ok(
    (await metricValue(gw, 'polygate_requests_total', {
      family: 'audio',
      upstream_format: 'local-speech',
      provider: 'speech',
      outcome: 'ok',
    })) > 0,
  );
});
