// Built-in provider `sandbox-tune`: a stand-in music service for client development and CI with
// no music account. Tasks go through the states a real upstream shows (IN_PROGRESS with
// `streaming` songs, then SUCCESS with `complete` ones) after a configurable delay, and each
// music task yields two songs whose MP3 polygate renders locally (sandbox-renderer.ts) and serves
// at /tune/audio/{clip_id}.mp3. Its jobs live in the process store, so they survive a restart
// like a real upstream's would. Writing "[sandbox:fail]" anywhere in a submission makes the task
// fail, so clients can exercise their FAIL path too.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayError, invalid } from '../../ir/gateway-error.ts';
import type { Song, TaskAction, TaskSubmission, UpstreamTaskView } from '../../ir/music-task.ts';
import type { Store } from '../../infra/store/store.ts';
import { ToolError } from '../speech/run-tool.ts';
import { renderSong } from './sandbox-renderer.ts';
import type { TuneProvider } from './tune-provider.ts';

const JOBS = 'tune.sandbox';
export const failMarker = '[sandbox:fail]';

type SandboxJob = {
  id: string;
  action: TaskAction;
  model: string;
  createdAt: number;
  title: string;
  tags: string;
  lyrics: string;
  description: string;
  instrumental: boolean;
  /** Two clip ids for MUSIC: random UUIDs, so an audio URL cannot be guessed. */
  clips: string[];
  /** Seconds per clip once rendered. */
  durations: number[] | null;
  failReason: string;
  /** Renders that failed so far (absent in jobs stored before it existed). */
  renderFailures?: number;
};

/** Renders tried before a task fails: a fault that repeats is the input's, not the moment's. */
const maxRenderAttempts = 3;

/** Lyrics the sandbox writes itself from a theme, when no tune.lyrics_model is configured. */
export function sandboxLyrics(theme: string): { title: string; text: string } {
  const words = theme
    .replace(/[^\p{L}\p{N}\s']/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const title =
    words
      .slice(0, 4)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join(' ') || 'Untitled';
  return { title, text: `[Verse]\n${theme.trim()}\n\n[Chorus]\n${title}, ${title}\nSing it with me, ${title}` };
}

const majorVersion = (model: string): string => /v(\d+)/.exec(model)?.[0] ?? model;

export class SandboxTuneProvider implements TuneProvider {
  readonly name: string;
  readonly type = 'sandbox-tune';
  readonly #store: Store;
  readonly #audioDir: string;
  /** Kept current by tuneProvidersOf when a reloaded config changes tune.sandbox_delay_ms. */
  delayMs: number;
  /** Renders in flight in this process, by job id; a restart simply renders again. */
  readonly #rendering = new Map<string, Promise<number[]>>();
  readonly #clipJob = new Map<string, string>();

  constructor(name: string, store: Store, audioDir: string, delayMs: number) {
    this.name = name;
    this.#store = store;
    this.#audioDir = audioDir;
    this.delayMs = delayMs;
  }

  audioPath(clipId: string): string {
    return join(this.#audioDir, `${clipId}.mp3`);
  }

  async submit(submission: TaskSubmission, upstreamModel: string): Promise<string> {
    const job: SandboxJob = {
      id: randomUUID(),
      action: submission.kind === 'music' ? 'MUSIC' : 'LYRICS',
      model: upstreamModel,
      createdAt: Date.now(),
      title: '',
      tags: '',
      lyrics: '',
      description: '',
      instrumental: submission.kind === 'music' && submission.instrumental,
      clips: [],
      durations: null,
      failReason: '',
    };
    let texts: string[];
    if (submission.kind === 'lyrics') {
      const l = sandboxLyrics(submission.prompt);
      Object.assign(job, { title: l.title, lyrics: l.text });
      texts = [submission.prompt];
    } else {
      const m = submission.mode;
      job.clips = [randomUUID(), randomUUID()];
      switch (m.type) {
        case 'inspiration': {
          const l = sandboxLyrics(m.description);
          Object.assign(job, {
            title: l.title,
            lyrics: job.instrumental ? '' : l.text,
            tags: 'sandbox, synth pop',
            description: m.description,
          });
          texts = [m.description];
          break;
        }
        case 'custom':
          Object.assign(job, { title: m.title, lyrics: m.lyrics, tags: m.tags });
          texts = [m.lyrics, m.title, m.tags];
          break;
        case 'continuation': {
          const src = (await this.#store.get<SandboxJob>(JOBS, m.taskId))?.data;
          if (!src || !src.clips.includes(m.clipId))
            throw invalid(
              'continue_clip_id',
              `continue_clip_id: sandbox has no clip '${m.clipId}' in task '${m.taskId}'`,
            );
          Object.assign(job, {
            title: m.title ?? `${src.title} (extended)`,
            lyrics: m.lyrics ?? src.lyrics,
            tags: m.tags ?? src.tags,
            description: src.description,
          });
          texts = [m.lyrics ?? '', m.title ?? '', m.tags ?? ''];
          break;
        }
        default: {
          const never: never = m;
          return never;
        }
      }
    }
    if (texts.some((t) => t.includes(failMarker)))
      job.failReason = `sandbox: failure requested by ${failMarker} in the submission`;
    await this.#store.put<SandboxJob>(JOBS, { id: job.id, workspace: '', data: job, dueAt: null });
    // Start rendering now, so the audio is usually ready by the time the task "finishes".
    if (job.clips.length > 0 && !job.failReason) this.#render(job).catch(() => undefined);
    return job.id;
  }

  async fetch(upstreamIds: string[]): Promise<UpstreamTaskView[]> {
    const out: UpstreamTaskView[] = [];
    for (const id of upstreamIds) {
      const job = (await this.#store.get<SandboxJob>(JOBS, id))?.data;
      if (job) out.push(await this.#view(job));
    }
    return out;
  }

  /** The rendered file of a clip, waiting for a render of it in flight; undefined when there is none. */
  async audioFile(clipId: string): Promise<string | undefined> {
    const jobId = this.#clipJob.get(clipId);
    const pending = jobId ? this.#rendering.get(jobId) : undefined;
    if (pending) await pending.catch(() => undefined);
    const file = this.audioPath(clipId);
    return existsSync(file) ? file : undefined;
  }

  #render(job: SandboxJob): Promise<number[]> {
    let p = this.#rendering.get(job.id);
    if (!p) {
      p = Promise.all(
        job.clips.map((clip, i) =>
          renderSong(this.audioPath(clip), {
            lyrics: job.lyrics,
            title: job.title,
            instrumental: job.instrumental,
            variant: i,
          }).then((r) => r.duration),
        ),
      ).finally(() => {
        this.#rendering.delete(job.id);
        for (const c of job.clips) this.#clipJob.delete(c);
      });
      this.#rendering.set(job.id, p);
      for (const c of job.clips) this.#clipJob.set(c, job.id);
    }
    return p;
  }

  async #view(job: SandboxJob): Promise<UpstreamTaskView> {
    const elapsed = Date.now() - job.createdAt;
    const delay = this.delayMs;
    const startTime = Math.floor(job.createdAt / 1000);
    const base = { id: job.id, action: job.action, submitTime: startTime, startTime, failReason: '' };
    if (elapsed < delay) {
      return {
        ...base,
        status: 'IN_PROGRESS',
        rawStatus: 'IN_PROGRESS',
        finishTime: 0,
        progress: Math.floor((elapsed / delay) * 100),
        output: this.#output(job, 'streaming'),
      };
    }
    if (job.failReason) {
      return {
        ...base,
        status: 'FAIL',
        rawStatus: 'FAIL',
        failReason: job.failReason,
        finishTime: Math.floor(Date.now() / 1000),
        progress: 100,
        output: this.#output(job, 'error'),
      };
    }
    if (job.action === 'MUSIC' && (!job.durations || job.clips.some((c) => !existsSync(this.audioPath(c))))) {
      try {
        job.durations = await this.#render(job);
      } catch (e) {
        const reason = `sandbox could not render audio: ${(e as Error).message}`;
        job.renderFailures = (job.renderFailures ?? 0) + 1;
        // A render that can never succeed (the tool refused the input, or is not installed) or
        // that failed every time fails the task now, rather than being retried to its deadline.
        if ((e instanceof ToolError && e.permanent) || job.renderFailures >= maxRenderAttempts) {
          job.failReason = reason;
          await this.#store.put<SandboxJob>(JOBS, { id: job.id, workspace: '', data: job, dueAt: null });
          return this.#view(job);
        }
        await this.#store.put<SandboxJob>(JOBS, { id: job.id, workspace: '', data: job, dueAt: null });
        throw new GatewayError('upstream', reason);
      }
      await this.#store.put<SandboxJob>(JOBS, { id: job.id, workspace: '', data: job, dueAt: null });
    }
    const finished = Math.floor((job.createdAt + delay) / 1000);
    return {
      ...base,
      status: 'SUCCESS',
      rawStatus: 'SUCCESS',
      finishTime: Math.max(finished, startTime),
      progress: 100,
      output: this.#output(job, 'complete'),
    };
  }

  #output(job: SandboxJob, status: 'streaming' | 'complete' | 'error'): UpstreamTaskView['output'] {
    if (job.action === 'LYRICS') {
      return status === 'streaming'
        ? { kind: 'lyrics', lyrics: null }
        : {
            kind: 'lyrics',
            lyrics: { id: job.id, text: status === 'error' ? '' : job.lyrics, title: job.title, status },
          };
    }
    const songs: Song[] = job.clips.map((clip, i) => ({
      id: clip,
      title: job.title,
      status,
      metadata: {
        tags: job.tags,
        prompt: job.lyrics,
        duration: status === 'complete' ? (job.durations?.[i] ?? null) : null,
        errorType: status === 'error' ? 'sandbox_failure' : null,
        errorMessage: status === 'error' ? job.failReason : null,
        audioPromptId: null,
        gptDescriptionPrompt: job.description,
      },
      audioUrl: status === 'error' ? '' : `/tune/audio/${clip}.mp3`,
      imageUrl: '',
      imageLargeUrl: '',
      videoUrl: '',
      modelName: job.model,
      majorModelVersion: majorVersion(job.model),
    }));
    return { kind: 'songs', songs };
  }
}
