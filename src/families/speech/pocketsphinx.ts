// Speech to text with pocketsphinx (Debian packages pocketsphinx and pocketsphinx-en-us), US
// English. Two CLIs exist: `pocketsphinx_continuous -infile F -time yes` of 0.8+5prealpha prints
// each utterance's hypothesis and then one `word start end posterior` line per word
// (https://manpages.debian.org/bookworm/pocketsphinx/pocketsphinx_continuous.1.en.html); the
// `pocketsphinx live F` of 5.x prints one JSON object per utterance with `w`ords, `b`egin,
// `d`uration and `p`osterior (https://github.com/cmusphinx/pocketsphinx/blob/master/doc/pocketsphinx.1).
import type { Recognizer } from './system-tools.ts';
import { runTool } from './run-tool.ts';

/** One recognized token with its time span and posterior probability (0 to 1). */
export type RecognizedToken = { token: string; start: number; end: number; p: number };

/** An utterance as the recognizer's voice activity detection cut it. */
export type Utterance = { start: number; end: number; tokens: RecognizedToken[] };

export async function recognize(
  recognizer: Recognizer,
  wav: string,
  run: { timeoutMs: number; signal?: AbortSignal },
): Promise<Utterance[]> {
  if (recognizer.kind === 'continuous') {
    const out = await runTool(recognizer.bin, ['-infile', wav, '-time', 'yes', '-logfn', '/dev/null'], run);
    return parseContinuousOutput(out.toString('utf8'));
  }
  const out = await runTool(recognizer.bin, ['live', wav], run);
  return parseJsonLinesOutput(out.toString('utf8'));
}

const timedLine = /^(\S+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;

/**
 * Word-timing lines are grouped into utterances by the `<s>` … `</s>` markers around them; the
 * hypothesis lines in between repeat the same words and are skipped.
 */
export function parseContinuousOutput(text: string): Utterance[] {
  const utterances: Utterance[] = [];
  let current: RecognizedToken[] | undefined;
  const close = (): void => {
    if (current && current.length > 0) utterances.push(utteranceOf(current));
    current = undefined;
  };
  for (const line of text.split('\n')) {
    const m = timedLine.exec(line.trim());
    if (!m) continue;
    const tok: RecognizedToken = { token: m[1], start: Number(m[2]), end: Number(m[3]), p: Number(m[4]) };
    if (tok.token === '<s>') close();
    current ??= [];
    current.push(tok);
    if (tok.token === '</s>') close();
  }
  close();
  return utterances;
}

type JsonWord = { b?: unknown; d?: unknown; p?: unknown; t?: unknown };

export function parseJsonLinesOutput(text: string): Utterance[] {
  const utterances: Utterance[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    let v: { b?: unknown; d?: unknown; w?: unknown };
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      continue;
    }
    const words = Array.isArray(v.w) ? (v.w as JsonWord[]) : [];
    const tokens = words
      .filter((w) => typeof w.t === 'string' && typeof w.b === 'number' && typeof w.d === 'number')
      .map((w) => ({
        token: w.t as string,
        start: w.b as number,
        end: ms((w.b as number) + (w.d as number)),
        p: typeof w.p === 'number' ? w.p : 1,
      }));
    if (tokens.length > 0) utterances.push(utteranceOf(tokens));
    else if (typeof v.b === 'number' && typeof v.d === 'number')
      utterances.push({ start: v.b, end: ms(v.b + v.d), tokens: [] });
  }
  return utterances;
}

/** The CLI prints milliseconds; sums of them should not grow float noise. */
const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

function utteranceOf(tokens: RecognizedToken[]): Utterance {
  return { start: tokens[0].start, end: tokens[tokens.length - 1].end, tokens };
}

/**
 * A real word, or undefined for the recognizer's markers: sentence bounds `<s>` `</s>`, silence
 * `<sil>`, fillers `[NOISE]` / `++UM++`. Alternate pronunciations `word(2)` are the same word.
 */
export function wordOf(token: string): string | undefined {
  if (/^<.*>$/.test(token) || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token)) return undefined;
  const w = token.replace(/\(\d+\)$/, '');
  return w === '' ? undefined : w;
}
