// An emulated `tune` upstream: a node:http server on loopback speaking family A (the envelope,
// task objects, songs and lyrics of the spec) under /tune. Each submission follows a scripted plan:
// the status words it shows on successive fetches (variants such as SUBMITTED, QUEUED, NOT_START,
// FAILURE included), its failure reason, or an error instead of a task id.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendJson as send } from './emulator-server.ts';
import type { RecordedRequest } from './emulator-types.ts';

export type TunePlan = {
  /** Status words shown on successive fetches of the task; the last one repeats. */
  statuses?: string[];
  /** fail_reason sent with a failing status. */
  failReason?: string;
  /** Answer the submission with this error instead of a task id (and a Retry-After header, in seconds, when given). */
  submitError?: { status: number; message: string; retryAfter?: number };
  /** Timestamps in milliseconds, as some services send them. */
  msTimestamps?: boolean;
  /** Stay at the first status until `release(id)`, so a test can look at a running task without racing. */
  hold?: boolean;
};

type UpTask = {
  id: string;
  action: 'MUSIC' | 'LYRICS';
  body: Record<string, unknown>;
  plan: TunePlan;
  step: number;
  fetched: number;
  submitted: number;
  clips: string[];
};

export type TuneUpstream = {
  /** base_url for a polygate provider (ends in /tune). */
  url: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Plans for the next submissions, in order; unplanned ones go SUBMITTED → IN_PROGRESS → SUCCESS. */
  script(...plans: TunePlan[]): void;
  /** The next `n` fetch calls answer HTTP `status`. */
  failFetches(n: number, status?: number): void;
  /** Lets a held task move on through its statuses. */
  release(upstreamId: string): void;
  /** Moves a held task to its next status. */
  step(upstreamId: string): void;
  /** How many fetches have reported this task so far. */
  fetched(upstreamId: string): number;
  /** Upstream task ids in order of submission, with the body each was submitted with. */
  submissions(): Array<{ id: string; path: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
};

const defaultStatuses = ['SUBMITTED', 'IN_PROGRESS', 'SUCCESS'];
const running = new Set(['IN_PROGRESS', 'RUNNING', 'STREAMING', 'PROCESSING']);
const finished = new Set(['SUCCESS', 'COMPLETE', 'COMPLETED', 'SUCCEEDED']);
const failed = new Set(['FAIL', 'FAILURE', 'FAILED', 'ERROR']);

const ok = (data: unknown) => ({ code: 'success', message: '', data });
const err = (message: string) => ({ code: 'error', message, data: null });

function songsOf(t: UpTask, word: string): unknown[] {
  const b = t.body;
  const description = typeof b.gpt_description_prompt === 'string' ? b.gpt_description_prompt : '';
  const lyrics = typeof b.prompt === 'string' ? b.prompt : description ? `[Verse]\nA song about ${description}` : '';
  const done = finished.has(word);
  const bad = failed.has(word);
  return t.clips.map((clip, i) => ({
    id: clip,
    title: typeof b.title === 'string' ? b.title : 'Upstream Title',
    status: done ? 'complete' : bad ? 'error' : 'streaming',
    metadata: {
      tags: typeof b.tags === 'string' ? b.tags : 'upstream pop',
      prompt: lyrics,
      duration: done ? 120.5 + i : null,
      error_type: bad ? 'upstream_error' : null,
      error_message: bad ? (t.plan.failReason ?? 'failed') : null,
      audio_prompt_id: null,
      gpt_description_prompt: description,
    },
    audio_url: `https://cdn.tune.example/${clip}.mp3`,
    image_url: `https://cdn.tune.example/image_${clip}.jpeg`,
    image_large_url: `https://cdn.tune.example/image_large_${clip}.jpeg`,
    video_url: done ? `https://cdn.tune.example/${clip}.mp4` : '',
    model_name: 'chirp-v3',
    major_model_version: String(b.mv ?? 'v3'),
  }));
}

function taskObject(t: UpTask): unknown {
  const statuses = t.plan.statuses ?? defaultStatuses;
  const word = statuses[Math.min(t.step, statuses.length - 1)];
  const scale = t.plan.msTimestamps ? 1000 : 1;
  const isDone = finished.has(word) || failed.has(word);
  let data: unknown;
  if (t.action === 'MUSIC') data = running.has(word) || isDone ? songsOf(t, word) : [];
  else
    data = {
      id: `lyr-${t.id}`,
      text: finished.has(word) ? `[Verse]\nUpstream lyrics on ${String(t.body.prompt)}` : '',
      title: finished.has(word) ? 'Upstream Lyrics' : '',
      status: finished.has(word) ? 'complete' : 'running',
    };
  return {
    task_id: t.id,
    notify_hook: '',
    action: t.action,
    status: word,
    fail_reason: failed.has(word) ? (t.plan.failReason ?? '') : '',
    submit_time: t.submitted * scale,
    start_time: (t.submitted + 1) * scale,
    finish_time: isDone ? (t.submitted + 5) * scale : 0,
    progress: isDone ? '100%' : running.has(word) ? '40%' : '0%',
    data,
  };
}

export async function startTuneUpstream(opts: { apiKey?: string } = {}): Promise<TuneUpstream> {
  const apiKey = opts.apiKey ?? 'up-key-0001';
  const requests: RecordedRequest[] = [];
  const plans: TunePlan[] = [];
  const tasks = new Map<string, UpTask>();
  const order: Array<{ id: string; path: string; body: Record<string, unknown> }> = [];
  let failing = 0;
  let failStatus = 500;
  let n = 0;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* recorded as text */
    }
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, err('invalid api key'));
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    if (req.method === 'POST' && (path === '/tune/submit/music' || path === '/tune/submit/lyrics')) {
      const plan = plans.shift() ?? {};
      if (plan.submitError) {
        if (plan.submitError.retryAfter !== undefined)
          res.setHeader('retry-after', String(plan.submitError.retryAfter));
        return send(res, plan.submitError.status, err(plan.submitError.message));
      }
      const id = `up-${++n}`;
      const action = path.endsWith('/lyrics') ? 'LYRICS' : 'MUSIC';
      tasks.set(id, {
        id,
        action,
        body: b,
        plan,
        step: 0,
        fetched: 0,
        submitted: Math.floor(Date.now() / 1000),
        clips: action === 'MUSIC' ? [`clip-${id}-a`, `clip-${id}-b`] : [],
      });
      order.push({ id, path, body: b });
      return send(res, 200, ok(id));
    }
    const single = /^\/tune\/fetch\/([^/?]+)$/.exec(path);
    if ((req.method === 'POST' && path === '/tune/fetch') || (req.method === 'GET' && single)) {
      if (failing > 0) {
        failing--;
        return send(res, failStatus, err('upstream is having a bad day'));
      }
      const ids = single
        ? [decodeURIComponent(single[1])]
        : Array.isArray(b.ids)
          ? (b.ids as unknown[]).map(String)
          : [];
      const found = ids.flatMap((id) => {
        const t = tasks.get(id);
        if (!t) return [];
        const obj = taskObject(t);
        t.fetched++;
        if (!t.plan.hold) t.step++;
        return [obj];
      });
      if (single) return found.length ? send(res, 200, ok(found[0])) : send(res, 404, err('task not found'));
      return send(res, 200, ok(found));
    }
    send(res, 404, err(`no route ${req.method} ${path}`));
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/tune`,
    apiKey,
    requests,
    script: (...p) => void plans.push(...p),
    failFetches: (count, status = 500) => {
      failing = count;
      failStatus = status;
    },
    release: (id) => {
      const t = tasks.get(id);
      if (t) t.plan = { ...t.plan, hold: false };
    },
    step: (id) => {
      const t = tasks.get(id);
      if (t) t.step++;
    },
    fetched: (id) => tasks.get(id)?.fetched ?? 0,
    submissions: () => order,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
