// Content types of `openai-audio` answers, as OpenAI sends them
// (https://platform.openai.com/docs/api-reference/audio/createSpeech: the body is the audio file).
import type { SpeechFormat } from '../../src/ir/speech-request.ts';
import type { TranscriptFormat } from '../../src/ir/transcription.ts';

export function speechContentType(format: SpeechFormat): string {
  switch (format) {
    case 'mp3':
      return 'audio/mpeg';
    case 'opus':
      return 'audio/opus';
    case 'aac':
      return 'audio/aac';
    case 'flac':
      return 'audio/flac';
    case 'wav':
      return 'audio/wav';
    case 'pcm':
      return 'audio/pcm';
    default: {
      const never: never = format;
      return never;
    }
  }
}

/** json and verbose_json are JSON; text, srt and vtt are sent as plain text. */
export function transcriptContentType(format: TranscriptFormat): string {
  switch (format) {
    case 'json':
    case 'verbose_json':
      return 'application/json';
    case 'text':
    case 'srt':
    case 'vtt':
      return 'text/plain; charset=utf-8';
    default: {
      const never: never = format;
      return never;
    }
  }
}
