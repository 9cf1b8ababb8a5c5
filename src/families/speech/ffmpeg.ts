// Audio conversion with ffmpeg (Debian package ffmpeg; https://ffmpeg.org/ffmpeg.html): speech
// into each response format, uploads into what the recognizer reads.
import { join } from 'node:path';
import type { SpeechFormat } from '../../ir/speech-request.ts';
import { pcmLayout } from '../../ir/speech-request.ts';
import { runTool } from './run-tool.ts';

type Run = { timeoutMs: number; signal?: AbortSignal };

// No encoder tags or metadata: the same input gives the same bytes.
const quiet = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y'];
const bitexact = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact'];

/**
 * Codec and container per format, as OpenAI delivers them
 * (https://platform.openai.com/docs/guides/text-to-speech#supported-output-formats): opus in an
 * Ogg container, aac as ADTS, pcm as raw 16-bit little-endian mono at 24 kHz.
 */
function codecArgs(format: SpeechFormat): string[] {
  switch (format) {
    case 'mp3':
      return ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'];
    case 'opus':
      return ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'];
    case 'aac':
      return ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'];
    case 'flac':
      return ['-c:a', 'flac', '-f', 'flac'];
    case 'wav':
      return ['-c:a', 'pcm_s16le', '-f', 'wav'];
    case 'pcm':
      return ['-c:a', 'pcm_s16le', '-f', 's16le'];
    default: {
      const never: never = format;
      return never;
    }
  }
}

/** Encodes `input` into `dir`/speech.<format>, changing tempo by `tempo` (1 = unchanged). */
export async function encodeSpeech(
  bin: string,
  input: string,
  dir: string,
  format: SpeechFormat,
  tempo: number,
  run: Run,
): Promise<string> {
  const out = join(dir, `speech.${format}`);
  // atempo takes 0.5 to 100 per instance; espeak's rate range keeps the factor inside it.
  const filter = Math.abs(tempo - 1) > 1e-3 ? ['-af', `atempo=${tempo.toFixed(4)}`] : [];
  const args = [
    ...quiet,
    '-i',
    input,
    '-vn',
    ...filter,
    '-ac',
    String(pcmLayout.channels),
    '-ar',
    String(pcmLayout.sampleRate),
    ...bitexact,
    ...codecArgs(format),
    out,
  ];
  await runTool(bin, args, run);
  return out;
}

/** Any accepted upload → 16 kHz mono 16-bit WAV, what pocketsphinx's US English model expects. */
export async function toRecognizerWav(bin: string, input: string, dir: string, run: Run): Promise<string> {
  const out = join(dir, 'recognize.wav');
  await runTool(
    bin,
    [
      ...quiet,
      '-i',
      input,
      '-vn',
      '-map',
      '0:a:0',
      '-ac',
      '1',
      '-ar',
      '16000',
      '-c:a',
      'pcm_s16le',
      ...bitexact,
      '-f',
      'wav',
      out,
    ],
    run,
  );
  return out;
}

/** The container's duration in seconds, or undefined when ffprobe cannot tell. */
export async function probeDuration(ffprobe: string, input: string, run: Run): Promise<number | undefined> {
  const out = await runTool(
    ffprobe,
    ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', input],
    run,
  );
  const seconds = Number(out.toString('utf8').trim());
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
