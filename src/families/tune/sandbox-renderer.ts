// The sandbox's "music": a synthesized backing (ffmpeg's aevalsrc: two alternating chords and a
// kick) with the lyrics spoken by espeak-ng on top, mixed and encoded to MP3 by ffmpeg. It is a
// stand-in so clients can exercise the whole task lifecycle and play a real file; it is not a
// music model. Both tools come from Debian packages (`apt-get install espeak-ng ffmpeg`).
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runTool, ToolError } from '../speech/run-tool.ts';

/** Spoken text is capped so a long prompt renders in about a second, not a minute. */
const maxSpokenChars = 400;
const instrumentalSeconds = 12;

/** Two voicings so the two songs of a task sound different. */
const variants = [
  { voice: 'en-us+m3', speed: 150, chords: ['220,277.18,329.63', '174.61,220,261.63'], bpm: 120 },
  { voice: 'en-us+f3', speed: 140, chords: ['196,246.94,293.66', '164.81,196,246.94'], bpm: 96 },
] as const;

export type RenderedSong = { duration: number };

/** One render step; a program that hangs is killed (a render takes a second or two). */
async function run(cmd: string, args: string[], stdin?: string): Promise<void> {
  try {
    await runTool(cmd, args, { timeoutMs: 60_000, stdin });
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    const tail = e.stderr.trim().split('\n').slice(-3).join(' ');
    throw Object.assign(new ToolError(e.tool, `${e.message}${tail ? `: ${tail}` : ''}`, e), { cause: e });
  }
}

/** Seconds of audio in a PCM WAV file written by espeak-ng. */
function wavSeconds(file: string): number {
  const b = readFileSync(file);
  let off = 12;
  let bytesPerSec = 44100;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    if (id === 'fmt ') {
      bytesPerSec = b.readUInt32LE(off + 16) || b.readUInt32LE(off + 12) * 2;
    }
    // espeak-ng writes to a pipe-like stream and may leave the data size at 0x7fffffff: use the file size.
    if (id === 'data') return Math.max(0, Math.min(size, b.length - off - 8)) / bytesPerSec;
    off += 8 + size + (size % 2);
  }
  return 0;
}

/** Lyrics as they are sung: section markers such as `[Chorus]` are stage directions, not words. */
export function spokenText(lyrics: string): string {
  const text = lyrics
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > maxSpokenChars ? `${text.slice(0, maxSpokenChars).replace(/\s+\S*$/, '')}.` : text;
}

/**
 * The backing as an ffmpeg input plus the filter that turns it into `seconds` of 44.1 kHz audio.
 * One bar is computed (at 11 kHz: these are low sines) and looped, because aevalsrc evaluates its
 * expression per sample and a whole song of it costs a second of CPU.
 */
function backing(variant: (typeof variants)[number], seconds: number): { input: string[]; filter: string } {
  const chord = (freqs: string, amp: number): string =>
    freqs
      .split(',')
      .map((f) => `${amp}*sin(2*PI*${f}*t)`)
      .join('+');
  const beat = 60 / variant.bpm;
  const bar = beat * 8;
  const rate = 11025;
  const [a, b] = variant.chords;
  // Chords change every four beats; the kick is a decaying 55 Hz sine on each beat.
  const expr = `if(lt(mod(t,${bar}),${beat * 4}),${chord(a, 0.06)},${chord(b, 0.06)})+0.3*sin(2*PI*55*t)*exp(-12*mod(t,${beat}))`;
  return {
    input: ['-f', 'lavfi', '-i', `aevalsrc='${expr}':s=${rate}:d=${bar}`],
    filter: `aloop=loop=-1:size=${Math.round(bar * rate)},atrim=duration=${seconds.toFixed(2)},aresample=44100`,
  };
}

/**
 * Renders one song to `file` (written to a temporary name and renamed, so a reader never sees a
 * partial file). `variant` 0 or 1 picks the voice and the chords.
 */
export async function renderSong(
  file: string,
  opts: { lyrics: string; title: string; instrumental: boolean; variant: number },
): Promise<RenderedSong> {
  const v = variants[opts.variant % variants.length];
  // Work beside the target so the final rename stays on one filesystem (atomic).
  mkdirSync(dirname(file), { recursive: true });
  const work = mkdtempSync(join(dirname(file), '.render-'));
  try {
    const text = opts.instrumental ? '' : spokenText(opts.lyrics);
    const speech = join(work, 'speech.wav');
    const out = join(work, 'song.mp3');
    const meta = [
      '-metadata',
      `title=${opts.title}`,
      '-metadata',
      'artist=polygate sandbox',
      '-metadata',
      'comment=sandbox-tune: not a music model',
    ];
    const encode = ['-ac', '2', '-c:a', 'libmp3lame', '-b:a', '96k'];
    let duration: number;
    if (text) {
      await run('espeak-ng', ['-v', v.voice, '-s', String(v.speed), '-w', speech, '--stdin'], text);
      duration = wavSeconds(speech) + 2;
      const bg = backing(v, duration);
      const filter = `[0:a]aresample=44100,adelay=1000:all=1[v];[1:a]${bg.filter}[b];[v][b]amix=inputs=2:duration=longest:normalize=0[m]`;
      await run('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-i',
        speech,
        ...bg.input,
        '-filter_complex',
        filter,
        '-map',
        '[m]',
        ...encode,
        ...meta,
        out,
      ]);
    } else {
      duration = instrumentalSeconds;
      const bg = backing(v, duration);
      await run('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        ...bg.input,
        '-filter_complex',
        `[0:a]${bg.filter}[m]`,
        '-map',
        '[m]',
        ...encode,
        ...meta,
        out,
      ]);
    }
    renameSync(out, file);
    return { duration: Math.round(duration * 100) / 100 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
