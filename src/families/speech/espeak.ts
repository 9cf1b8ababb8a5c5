// Text to speech with espeak-ng (Debian package espeak-ng; https://github.com/espeak-ng/espeak-ng/blob/master/src/espeak-ng.1.ronn).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpeechVoice } from '../../ir/speech-request.ts';
import { runTool } from './run-tool.ts';

/**
 * The six voices as distinct espeak-ng voices: US English with a different Klatt variant and
 * pitch each. The Klatt variants were chosen because pocketsphinx's US English model recognizes
 * them far better than espeak's default formant voice, so local round trips work.
 */
export const espeakVoices: Record<SpeechVoice, { voice: string; pitch: number }> = {
  alloy: { voice: 'en-us+klatt', pitch: 50 },
  echo: { voice: 'en-us+klatt2', pitch: 40 },
  fable: { voice: 'en-us+klatt3', pitch: 60 },
  onyx: { voice: 'en-us+klatt4', pitch: 30 },
  nova: { voice: 'en-us+klatt5', pitch: 70 },
  shimmer: { voice: 'en-us+klatt6', pitch: 65 },
};

/** Words per minute at speed 1. */
export const baseRate = 160;
/** espeak-ng's usable rate range; beyond it the remainder is done by ffmpeg's atempo. */
const rateRange = { min: 80, max: 450 };

/**
 * speed → espeak-ng's rate plus the tempo factor ffmpeg applies afterwards, so every speed from
 * 0.25 to 4 scales the duration by 1/speed while pitch stays put.
 */
export function rateFor(speed: number): { rate: number; tempo: number } {
  const wanted = baseRate * speed;
  const rate = Math.round(Math.min(rateRange.max, Math.max(rateRange.min, wanted)));
  return { rate, tempo: wanted / rate };
}

/**
 * Speaks `text` into `dir`/espeak.wav (22.05 kHz mono 16-bit). The text goes through a file, not
 * argv, so a leading `-` is never taken for an option.
 */
export async function synthesizeWav(
  bin: string,
  dir: string,
  text: string,
  voice: SpeechVoice,
  rate: number,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  const textFile = join(dir, 'input.txt');
  const wav = join(dir, 'espeak.wav');
  await writeFile(textFile, text, 'utf8');
  const v = espeakVoices[voice];
  await runTool(
    bin,
    ['-v', v.voice, '-p', String(v.pitch), '-s', String(rate), '-b', '1', '-f', textFile, '-w', wav],
    opts,
  );
  return wav;
}
