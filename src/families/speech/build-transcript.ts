// Recognizer utterances → the IR transcript: one segment per utterance, the segment statistics
// Whisper reports computed from what pocketsphinx knows
// (https://platform.openai.com/docs/api-reference/audio/verbose-json-object).
import { deflateSync } from 'node:zlib';
import type { Transcript, TranscriptionTask, TranscriptSegment, TranscriptWord } from '../../ir/transcription.ts';
import { wordOf, type Utterance } from './pocketsphinx.ts';

export type Tokenize = (text: string) => number[];

export function buildTranscript(
  task: TranscriptionTask,
  utterances: Utterance[],
  durationSeconds: number,
  opts: { temperature: number; tokenize: Tokenize },
): Transcript {
  const words: TranscriptWord[] = [];
  const segments: TranscriptSegment[] = [];
  for (const u of utterances) {
    const uWords: TranscriptWord[] = [];
    const logps: number[] = [];
    let quiet = 0;
    for (const t of u.tokens) {
      const w = wordOf(t.token);
      if (w === undefined) {
        quiet += Math.max(0, t.end - t.start);
        continue;
      }
      uWords.push({ word: w, start: t.start, end: t.end });
      // Posteriors of exactly 0 happen; keep the log finite.
      logps.push(Math.log(Math.max(t.p, 1e-6)));
    }
    if (uWords.length === 0) continue;
    words.push(...uWords);
    const text = uWords.map((w) => w.word).join(' ');
    const span = Math.max(u.end - u.start, 1e-3);
    segments.push({
      id: segments.length,
      start: u.start,
      end: u.end,
      text,
      // Token ids of polygate's tokenizer (o200k), not Whisper's vocabulary.
      tokens: opts.tokenize(text),
      temperature: opts.temperature,
      avgLogprob: round4(logps.reduce((a, b) => a + b, 0) / logps.length),
      compressionRatio: round4(compressionRatio(text)),
      // Share of the utterance spent in silence and fillers: the recognizer's nearest notion.
      noSpeechProb: round4(Math.min(1, quiet / span)),
    });
  }
  return {
    task,
    language: 'english',
    durationSeconds,
    text: segments.map((s) => s.text).join(' '),
    segments,
    words,
  };
}

/** Whisper's repetition check: UTF-8 bytes over zlib-compressed bytes. */
export function compressionRatio(text: string): number {
  const raw = Buffer.from(text, 'utf8');
  return raw.length === 0 ? 0 : raw.length / deflateSync(raw).length;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
