// IR → requests to a `tune` upstream: a service speaking the `tune` format under its base_url (so the
// paths here are relative to a base_url that already ends in `/tune`, as in config/gateway.yaml).
// The caller's notify_hook is not forwarded: polygate polls the upstream and sends the callback
// itself, signed, after mapping the upstream's answer onto its own task.
import type { LyricsSubmission, MusicSubmission } from '../../src/ir/music-task.ts';
import type { UpstreamHttpRequest } from '../shared/chat-adapter.ts';

/**
 * `submission.mode` of a continuation must already carry the upstream's task id (the caller
 * knows only polygate's). `upstreamModel` is the route's model name, sent as `mv`.
 */
export function encodeMusicSubmit(submission: MusicSubmission, upstreamModel: string): UpstreamHttpRequest {
  const m = submission.mode;
  const body: Record<string, unknown> = {};
  switch (m.type) {
    case 'inspiration':
      body.gpt_description_prompt = m.description;
      break;
    case 'custom':
      body.prompt = m.lyrics;
      body.title = m.title;
      body.tags = m.tags;
      break;
    case 'continuation':
      body.task_id = m.taskId;
      body.continue_at = m.continueAt;
      body.continue_clip_id = m.clipId;
      if (m.lyrics !== undefined) body.prompt = m.lyrics;
      if (m.title !== undefined) body.title = m.title;
      if (m.tags !== undefined) body.tags = m.tags;
      break;
    default: {
      const never: never = m;
      return never;
    }
  }
  body.mv = upstreamModel;
  body.make_instrumental = submission.instrumental;
  return { path: '/submit/music', body, headers: {} };
}

export function encodeLyricsSubmit(submission: LyricsSubmission): UpstreamHttpRequest {
  return { path: '/submit/lyrics', body: { prompt: submission.prompt }, headers: {} };
}

/** One batched query for many upstream task ids. */
export function encodeFetch(upstreamIds: string[]): UpstreamHttpRequest {
  return { path: '/fetch', body: { ids: upstreamIds }, headers: {} };
}
