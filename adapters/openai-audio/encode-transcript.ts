// Transcript → the body of each response_format, as OpenAI answers them
// (https://platform.openai.com/docs/api-reference/audio/json-object,
// https://platform.openai.com/docs/api-reference/audio/verbose-json-object). srt and vtt follow
// https://en.wikipedia.org/wiki/SubRip and https://www.w3.org/TR/webvtt1/.
import type {
  TimestampGranularity,
  Transcript,
  TranscriptFormat,
  TranscriptSegment,
} from '../../src/ir/transcription.ts';
import { transcriptContentType } from './audio-media-types.ts';

export type EncodedTranscript = { contentType: string; body: string };

export type WireSegment = {
  id: number;
  seek: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
};

/** Billing-style usage Whisper reports: whole seconds of input audio, rounded up. */
const usageOf = (t: Transcript): { type: 'duration'; seconds: number } => ({
  type: 'duration',
  seconds: Math.ceil(t.durationSeconds),
});

export function encodeTranscript(
  t: Transcript,
  format: TranscriptFormat,
  granularities: TimestampGranularity[] = ['segment'],
): EncodedTranscript {
  const contentType = transcriptContentType(format);
  switch (format) {
    case 'json':
      return { contentType, body: JSON.stringify({ text: t.text, usage: usageOf(t) }) };
    case 'text':
      return { contentType, body: `${t.text}\n` };
    case 'verbose_json':
      return { contentType, body: JSON.stringify(verboseJson(t, granularities)) };
    case 'srt':
      return { contentType, body: srt(t.segments) };
    case 'vtt':
      return { contentType, body: vtt(t.segments) };
    default: {
      const never: never = format;
      return never;
    }
  }
}

function verboseJson(t: Transcript, granularities: TimestampGranularity[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    task: t.task,
    language: t.language,
    duration: round3(t.durationSeconds),
    text: t.text,
  };
  // Segments come by default; asking only for words returns words only. Translations have no words.
  if (granularities.includes('segment')) out.segments = t.segments.map(wireSegment);
  if (granularities.includes('word') && t.task === 'transcribe') {
    out.words = t.words.map((w) => ({ word: w.word, start: round3(w.start), end: round3(w.end) }));
  }
  out.usage = usageOf(t);
  return out;
}

export function wireSegment(s: TranscriptSegment): WireSegment {
  return {
    id: s.id,
    // Whisper's seek is the offset of the decoding window in 10 ms frames.
    seek: Math.round(s.start * 100),
    start: round3(s.start),
    end: round3(s.end),
    text: s.text,
    tokens: s.tokens,
    temperature: s.temperature,
    avg_logprob: s.avgLogprob,
    compression_ratio: s.compressionRatio,
    no_speech_prob: s.noSpeechProb,
  };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** `HH:MM:SS,mmm` (srt) or `HH:MM:SS.mmm` (vtt). */
export function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

function srt(segments: TranscriptSegment[]): string {
  return segments
    .map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${s.text.trim()}\n\n`)
    .join('');
}

function vtt(segments: TranscriptSegment[]): string {
  return `WEBVTT\n\n${segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${s.text.trim()}\n\n`).join('')}`;
}
