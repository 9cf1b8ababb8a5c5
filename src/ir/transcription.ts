// Speech to text in polygate's own terms: a transcription (text in the spoken language) or a
// translation (English text), its uploaded audio, and the transcript a provider produces.

export type TranscriptionTask = 'transcribe' | 'translate';

export const transcriptFormats = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const;
export type TranscriptFormat = (typeof transcriptFormats)[number];

export type TimestampGranularity = 'word' | 'segment';

/** Audio containers accepted for upload, as identified from the file's own bytes. */
export type AudioContainer = 'flac' | 'mp3' | 'mp4' | 'mpeg' | 'ogg' | 'wav' | 'webm';

/** An upload already spooled to a temporary file by the pipeline (never held whole in memory). */
export type AudioUpload = {
  path: string;
  filename: string;
  mediaType: string;
  size: number;
  container: AudioContainer;
};

export type TranscriptionRequest = {
  task: TranscriptionTask;
  model: string;
  file: AudioUpload;
  /** ISO-639-1 code of the spoken language, when the client names it. */
  language?: string;
  prompt?: string;
  format: TranscriptFormat;
  /** 0 to 1; undefined when the client left the default (0). */
  temperature?: number;
  /** Undefined when the client left the default (`segment`). */
  granularities?: TimestampGranularity[];
  stream?: boolean;
  /** Form fields polygate does not model, in arrival order, relayed verbatim to same-format upstreams only. */
  extra: Array<[string, string]>;
};

export type TranscriptWord = { word: string; start: number; end: number };

export type TranscriptSegment = {
  id: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  /** Mean natural log of the per-word posterior probabilities. */
  avgLogprob: number;
  /** Text bytes over deflated bytes, Whisper's repetition check. */
  compressionRatio: number;
  noSpeechProb: number;
};

export type Transcript = {
  task: TranscriptionTask;
  /** Language name in lower case, as Whisper reports it (`english`). */
  language: string;
  durationSeconds: number;
  text: string;
  segments: TranscriptSegment[];
  words: TranscriptWord[];
};
