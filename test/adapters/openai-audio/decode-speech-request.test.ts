// The speech body's rules (spec family B "Speech body", "Limits"), each failure naming its field.
import t from 'tap';
import { decodeSpeechRequest } from '../../../adapters/openai-audio/index.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';

const ok = { model: 'tts-1', input: 'Hello there.', voice: 'alloy' };

const paramOf = (body: unknown): string | null => {
  try {
    decodeSpeechRequest(body);
  } catch (e) {
    if (e instanceof GatewayError && e.kind === 'invalid-request') return e.param;
    throw e;
  }
  return null;
};

t.test('a minimal body takes the defaults: mp3, speed left to the engine', async (t) => {
  t.same(decodeSpeechRequest(ok), { model: 'tts-1', input: 'Hello there.', voice: 'alloy', format: 'mp3', extra: {} });
});

t.test('every documented field is carried; unknown ones are kept aside for same-format upstreams', async (t) => {
  const r = decodeSpeechRequest({
    ...ok,
    response_format: 'opus',
    speed: 0.25,
    instructions: 'Calm.',
    stream_format: 'audio',
    vendor_knob: 3,
  });
  t.equal(r.format, 'opus');
  t.equal(r.speed, 0.25);
  t.equal(r.instructions, 'Calm.');
  t.equal(r.streamFormat, 'audio');
  t.same(r.extra, { vendor_knob: 3 });
});

t.test('input limit counts characters, not UTF-16 units', async (t) => {
  t.equal(decodeSpeechRequest({ ...ok, input: '😀'.repeat(4096) }).input.length, 8192);
  t.equal(paramOf({ ...ok, input: 'a'.repeat(4097) }), 'input');
});

const cases: Array<[string, unknown, string]> = [
  ['body not an object', [1, 2], 'body'],
  ['model missing', { ...ok, model: undefined }, 'model'],
  ['model not a string', { ...ok, model: 7 }, 'model'],
  ['input missing', { ...ok, input: undefined }, 'input'],
  ['input empty', { ...ok, input: '' }, 'input'],
  ['voice missing', { ...ok, voice: undefined }, 'voice'],
  ['voice not a string', { ...ok, voice: 3 }, 'voice'],
  ['response_format unknown', { ...ok, response_format: 'ogg' }, 'response_format'],
  ['speed below 0.25', { ...ok, speed: 0.2 }, 'speed'],
  ['speed above 4', { ...ok, speed: 4.01 }, 'speed'],
  ['speed a string', { ...ok, speed: '1' }, 'speed'],
  ['stream_format unknown', { ...ok, stream_format: 'chunks' }, 'stream_format'],
];
for (const [name, body, param] of cases) {
  t.test(name, async (t) => t.equal(paramOf(body), param));
}

t.test('the bounds themselves are allowed', async (t) => {
  t.equal(decodeSpeechRequest({ ...ok, speed: 0.25 }).speed, 0.25);
  t.equal(decodeSpeechRequest({ ...ok, speed: 4 }).speed, 4);
  t.equal(decodeSpeechRequest({ ...ok, input: 'a'.repeat(4096) }).input.length, 4096);
});

t.test('a voice newer than polygate is no error (issue #29): kept for the upstream', async (t) => {
  t.equal(decodeSpeechRequest({ ...ok, voice: 'marin' }).voice, 'marin');
});
