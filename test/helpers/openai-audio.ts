// What the OpenAI audio tests ask and expect in common, whether they call the emulator straight or
// through the gateway: the speech formats with the content type OpenAI answers each with
// (https://platform.openai.com/docs/api-reference/audio/createSpeech), and one transcription in
// each response format. The emulator keeps its own table: the tests check it against this one.
import type OpenAI from 'openai';
import { toFile } from 'openai';
import type { Test } from 'tap';
import { speechFixture } from '../emulators/openai-audio-upstream.ts';

export const speechFormats = [
  ['mp3', 'audio/mpeg'],
  ['opus', 'audio/opus'],
  ['aac', 'audio/aac'],
  ['flac', 'audio/flac'],
  ['wav', 'audio/wav'],
  ['pcm', 'audio/pcm'],
] as const;

type SpeechRequest = Omit<OpenAI.Audio.SpeechCreateParams, 'response_format'>;

/**
 * `request` spoken in each speech format: each answer has the format's content type and the
 * emulator's audio bytes for it; `also` checks what else the caller expects of each answer.
 */
export async function speakEachFormat(
  t: Test,
  client: OpenAI,
  request: SpeechRequest,
  also: (format: (typeof speechFormats)[number][0], res: Response) => void = () => {},
): Promise<void> {
  for (const [format, type] of speechFormats) {
    const res = await client.audio.speech.create({ ...request, response_format: format });
    t.equal(res.headers.get('content-type'), type, format);
    t.same(Buffer.from(await res.arrayBuffer()), speechFixture(format), `${format} bytes`);
    also(format, res);
  }
}

/** `wav` transcribed once in each response format, in this order, as the SDK parses each. */
export async function transcribeEachFormat(
  client: OpenAI,
  wav: Buffer,
  granularities: Array<'word' | 'segment'>,
): Promise<{
  json: OpenAI.Audio.Transcription;
  text: string;
  srt: string;
  vtt: string;
  verbose: OpenAI.Audio.TranscriptionVerbose;
}> {
  const base = { model: 'whisper-1' };
  const file = () => toFile(wav, 'tone.wav', { type: 'audio/wav' });
  return {
    json: await client.audio.transcriptions.create({ ...base, file: await file() }),
    text: await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'text' }),
    srt: await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'srt' }),
    vtt: await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'vtt' }),
    verbose: await client.audio.transcriptions.create({
      ...base,
      file: await file(),
      response_format: 'verbose_json',
      timestamp_granularities: granularities,
    }),
  };
}

/** `input` spoken by `model` in the alloy voice as WAV: the request the routing tests repeat. */
export const speakWav = (client: OpenAI, model: string, input: string) =>
  client.audio.speech.create({ model, input, voice: 'alloy', response_format: 'wav' });
