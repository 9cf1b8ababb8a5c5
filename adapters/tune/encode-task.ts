// IR task → `tune` wire task object, and the success envelope (README, "Families served").
// Field order follows the spec's tables so the bytes read like the real service's.
import type { Lyrics, MusicTask, Song, TaskOutput, TaskStatus } from '../../src/ir/music-task.ts';

export type WireSong = {
  id: string;
  title: string;
  status: string;
  metadata: {
    tags: string;
    prompt: string;
    duration: number | null;
    error_type: string | null;
    error_message: string | null;
    audio_prompt_id: string | null;
    gpt_description_prompt: string;
  };
  audio_url: string;
  image_url: string;
  image_large_url: string;
  video_url: string;
  model_name: string;
  major_model_version: string;
};

export type WireLyrics = { id: string; text: string; title: string; status: string };

export type WireTask = {
  task_id: string;
  notify_hook: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: WireSong[] | WireLyrics;
};

export type Envelope<T> = { code: string; message: string; data: T };

export const successEnvelope = <T>(data: T): Envelope<T> => ({ code: 'success', message: '', data });

export type EncodeOptions = {
  /** Scheme and host the client reached polygate at; makes polygate-served paths absolute. */
  origin: string;
};

function absolute(url: string, opts: EncodeOptions): string {
  return url.startsWith('/') ? `${opts.origin.replace(/\/+$/, '')}${url}` : url;
}

export function encodeSong(s: Song, opts: EncodeOptions): WireSong {
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    metadata: {
      tags: s.metadata.tags,
      prompt: s.metadata.prompt,
      duration: s.metadata.duration,
      error_type: s.metadata.errorType,
      error_message: s.metadata.errorMessage,
      audio_prompt_id: s.metadata.audioPromptId,
      gpt_description_prompt: s.metadata.gptDescriptionPrompt,
    },
    audio_url: absolute(s.audioUrl, opts),
    image_url: absolute(s.imageUrl, opts),
    image_large_url: absolute(s.imageLargeUrl, opts),
    video_url: absolute(s.videoUrl, opts),
    model_name: s.modelName,
    major_model_version: s.majorModelVersion,
  };
}

/**
 * A LYRICS task always carries one lyrics object (spec); before the upstream has one, it is an
 * empty one whose status says so, with the words Suno's lyrics API uses (`running`, `error`).
 */
function lyricsOf(l: Lyrics | null, status: TaskStatus): WireLyrics {
  if (l) return { id: l.id, text: l.text, title: l.title, status: l.status };
  return {
    id: '',
    text: '',
    title: '',
    status: status === 'FAIL' ? 'error' : status === 'SUCCESS' ? 'complete' : 'running',
  };
}

function dataOf(out: TaskOutput, status: TaskStatus, opts: EncodeOptions): WireSong[] | WireLyrics {
  switch (out.kind) {
    case 'songs':
      return out.songs.map((s) => encodeSong(s, opts));
    case 'lyrics':
      return lyricsOf(out.lyrics, status);
    default: {
      const never: never = out;
      return never;
    }
  }
}

export function encodeTask(t: MusicTask, opts: EncodeOptions): WireTask {
  return {
    task_id: t.id,
    notify_hook: t.notifyHook,
    action: t.action,
    status: t.status,
    fail_reason: t.failReason,
    submit_time: t.submitTime,
    start_time: t.startTime,
    finish_time: t.finishTime,
    progress: `${Math.round(t.progress)}%`,
    data: dataOf(t.output, t.status, opts),
  };
}
