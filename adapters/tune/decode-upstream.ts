// A `tune` upstream's answers → IR. Upstreams of this family differ in small ways (status words
// such as SUBMITTED / NOT_START / FAILURE, millisecond timestamps, numeric progress), so this
// decoder is lenient about shapes and strict about what reaches clients: the three task states,
// epoch seconds, `finish_time` 0 until finished.
import { GatewayError, kindOfStatus } from '../../src/ir/gateway-error.ts';
import type { Lyrics, Song, TaskAction, TaskOutput, TaskStatus, UpstreamTaskView } from '../../src/ir/music-task.ts';
import { isObject, type Json } from '../shared/narrow.ts';

/**
 * Upstream status words → the spec's three states. Unknown words count as still running: the
 * task deadline bounds how long polygate keeps polling one that never settles.
 */
const statusWords: Record<string, TaskStatus> = {
  IN_PROGRESS: 'IN_PROGRESS',
  SUBMITTED: 'IN_PROGRESS',
  QUEUED: 'IN_PROGRESS',
  NOT_START: 'IN_PROGRESS',
  NOT_STARTED: 'IN_PROGRESS',
  PENDING: 'IN_PROGRESS',
  RUNNING: 'IN_PROGRESS',
  PROCESSING: 'IN_PROGRESS',
  STREAMING: 'IN_PROGRESS',
  STARTED: 'IN_PROGRESS',
  SUCCESS: 'SUCCESS',
  SUCCEEDED: 'SUCCESS',
  COMPLETE: 'SUCCESS',
  COMPLETED: 'SUCCESS',
  FINISHED: 'SUCCESS',
  FAIL: 'FAIL',
  FAILURE: 'FAIL',
  FAILED: 'FAIL',
  ERROR: 'FAIL',
  CANCELLED: 'FAIL',
  CANCELED: 'FAIL',
};

export function mapUpstreamStatus(raw: string): TaskStatus {
  return statusWords[raw.trim().toUpperCase()] ?? 'IN_PROGRESS';
}

/** The envelope's `data` on success; a GatewayError carrying the upstream's message otherwise. */
export function decodeUpstreamEnvelope(status: number, body: unknown, provider: string): unknown {
  const env: Json = isObject(body) ? body : {};
  const code = typeof env.code === 'string' ? env.code : undefined;
  if (status >= 200 && status < 300 && code === 'success') return env.data;
  const message =
    typeof env.message === 'string' && env.message ? env.message : `HTTP ${status}${code ? `, code ${code}` : ''}`;
  if (status >= 200 && status < 300) {
    // An envelope error on a 2xx: some services answer 200 with `code: "error"` for bad input.
    throw new GatewayError('upstream', `provider '${provider}': ${message}`);
  }
  const kind = kindOfStatus(status);
  // The upstream's 4xx about the request is the caller's to fix. Its 5xx, and its refusal of
  // polygate's own credentials (401/403: the operator's to fix, not the caller's key), are a 502.
  if (kind === 'internal' || kind === 'authentication' || kind === 'permission' || kind === 'upstream') {
    throw new GatewayError('upstream', `provider '${provider}': ${message}`, { status: 502 });
  }
  throw new GatewayError(kind, `provider '${provider}': ${message}`, { status });
}

/** The task id a submission returned (`data` is the id string; some services wrap it). */
export function decodeSubmitData(data: unknown, provider: string): string {
  if (typeof data === 'string' && data) return data;
  if (isObject(data)) {
    const id = data.task_id ?? data.id;
    if (typeof id === 'string' && id) return id;
  }
  throw new GatewayError('upstream', `provider '${provider}' answered a submission without a task id`);
}

const s = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const sOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function numOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** Epoch seconds; millisecond values (after 1973 in seconds) are scaled down. */
function seconds(v: unknown): number {
  const n = numOf(v);
  if (n === null || n <= 0) return 0;
  return Math.floor(n > 1e11 ? n / 1000 : n);
}

/** `"45%"`, `"45"`, `45` or `0.45` → 45. */
function progressOf(v: unknown, status: TaskStatus): number {
  const n = numOf(typeof v === 'string' ? v.replace('%', '') : v);
  if (status === 'SUCCESS') return 100;
  if (n === null) return 0;
  const pct = typeof v === 'number' && n > 0 && n < 1 ? n * 100 : n;
  return Math.min(100, Math.max(0, pct));
}

export function decodeSong(v: unknown): Song {
  const o: Json = isObject(v) ? v : {};
  const m: Json = isObject(o.metadata) ? o.metadata : {};
  return {
    id: s(o.id),
    title: s(o.title),
    status: s(o.status),
    metadata: {
      tags: s(m.tags),
      prompt: s(m.prompt),
      duration: numOf(m.duration),
      errorType: sOrNull(m.error_type),
      errorMessage: sOrNull(m.error_message),
      audioPromptId: sOrNull(m.audio_prompt_id),
      gptDescriptionPrompt: s(m.gpt_description_prompt),
    },
    audioUrl: s(o.audio_url),
    imageUrl: s(o.image_url),
    imageLargeUrl: s(o.image_large_url),
    videoUrl: s(o.video_url),
    modelName: s(o.model_name),
    majorModelVersion: s(o.major_model_version),
  };
}

function decodeLyrics(v: unknown): Lyrics | null {
  const o = Array.isArray(v) ? v[0] : v;
  if (!isObject(o)) return null;
  return { id: s(o.id), text: s(o.text), title: s(o.title), status: s(o.status) };
}

function outputOf(action: TaskAction, data: unknown): TaskOutput {
  switch (action) {
    case 'MUSIC':
      return { kind: 'songs', songs: Array.isArray(data) ? data.map(decodeSong) : [] };
    case 'LYRICS':
      return { kind: 'lyrics', lyrics: decodeLyrics(data) };
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** One upstream task object; undefined when it has no id (nothing to match it with). */
export function decodeUpstreamTask(v: unknown): UpstreamTaskView | undefined {
  if (!isObject(v)) return undefined;
  const id = s(v.task_id ?? v.id);
  if (!id) return undefined;
  const rawStatus = s(v.status);
  const status = mapUpstreamStatus(rawStatus);
  const action: TaskAction = s(v.action).toUpperCase() === 'LYRICS' ? 'LYRICS' : 'MUSIC';
  const submitTime = seconds(v.submit_time);
  return {
    id,
    action,
    status,
    rawStatus,
    failReason: status === 'FAIL' ? s(v.fail_reason) || `upstream reported status ${rawStatus}` : s(v.fail_reason),
    submitTime,
    startTime: seconds(v.start_time) || submitTime,
    finishTime: status === 'IN_PROGRESS' ? 0 : seconds(v.finish_time),
    progress: progressOf(v.progress, status),
    output: outputOf(action, v.data),
  };
}

/** The `data` of a batched fetch: an array of task objects (a single object is accepted too). */
export function decodeUpstreamTasks(data: unknown): UpstreamTaskView[] {
  const list = Array.isArray(data) ? data : data === null || data === undefined ? [] : [data];
  return list.flatMap((t) => {
    const d = decodeUpstreamTask(t);
    return d ? [d] : [];
  });
}
