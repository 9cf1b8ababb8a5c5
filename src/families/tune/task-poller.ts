// Advances claimed tasks one step: compose lyrics with the chat model, submit to the music
// provider, or poll it (one batched query per provider), and finish the task when it settles.
// Every step is safe to repeat after a crash: a task whose lease expired is simply claimed again.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { encodeTask } from '../../../adapters/tune/index.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import {
  emptyOutput,
  isTerminal,
  type MusicSubmission,
  type TaskOutput,
  type UpstreamTaskView,
} from '../../ir/music-task.ts';
import { tasksTotal, upstreamPollsTotal } from '../../infra/metrics/registry.ts';
import { toGatewayError } from '../../infra/errors/to-gateway-error.ts';
import { isRetryable } from '../../infra/upstream/failure-cause.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';
import type { Claimed } from '../../infra/store/store.ts';
import { writeLyrics } from './lyrics-writer.ts';
import type { BreakerBoard } from '../../services/resilience/breaker-board.ts';
import { submitOnRoutes } from './submit-on-routes.ts';
import type { TaskRecord, TaskStore } from './task-store.ts';
import type { TuneProvider } from './tune-provider.ts';

export type PollerDeps = {
  runtime: Runtime;
  tasks: TaskStore;
  providers: Map<string, TuneProvider>;
  /** The gateway's breakers (src/services/runtime/services.ts): music and lyrics submissions share them with chat. */
  breakers: BreakerBoard;
  log: Logger;
  /** Origin for polygate-served audio URLs in callback bodies. */
  origin: string;
  signal: AbortSignal;
  /** Called when a callback was queued, so delivery starts without waiting for the next tick. */
  onCallbackQueued: () => void;
};

type Doc = Claimed<TaskRecord>;

/** Upstream ids per batched query; the spec sets no limit, this keeps bodies small. */
const batchSize = 50;
/** Chat failures tolerated while composing before the task fails. */
const composeAttempts = 3;

const nowSec = (): number => Math.floor(Date.now() / 1000);

/** When to try a failed step again: doubling from the poll interval, never before the upstream's Retry-After. */
function backoff(d: PollerDeps, rec: TaskRecord, retryAfterS?: number): number {
  const delay = Math.max(
    Math.min(60_000, d.runtime.config.tune.poll_interval_ms * 2 ** Math.min(rec.failures, 6)),
    (retryAfterS ?? 0) * 1000,
  );
  return Math.min(Date.now() + delay, rec.deadlineAt);
}

async function save(d: PollerDeps, doc: Doc, dueAt: number | null): Promise<void> {
  if (!(await d.tasks.save(doc, dueAt)))
    d.log.warn({ task_id: doc.id }, 'task lease lost; another worker owns the task now');
}

/** Settles the task: queue its callback first (exactly once), then write it as done. */
async function finish(d: PollerDeps, doc: Doc): Promise<void> {
  const rec = doc.data;
  const t = rec.task;
  rec.phase = 'done';
  if (t.finishTime === 0) t.finishTime = nowSec();
  if (t.notifyHook) {
    const queued = await d.tasks.enqueueCallback(
      {
        deliveryId: randomUUID(),
        taskId: t.id,
        url: t.notifyHook,
        body: JSON.stringify(encodeTask(t, { origin: d.origin })),
        attempts: 0,
        state: 'pending',
        createdAt: Date.now(),
      },
      doc.workspace,
      Date.now(),
    );
    if (queued) d.onCallbackQueued();
  }
  if (await d.tasks.save(doc, null)) {
    tasksTotal.inc({ provider: rec.provider || 'none', action: t.action, status: t.status });
    d.log.info(
      {
        task_id: t.id,
        provider: rec.provider,
        action: t.action,
        status: t.status,
        fail_reason: t.failReason || undefined,
      },
      'task finished',
    );
  }
}

function fail(d: PollerDeps, doc: Doc, reason: string): Promise<void> {
  Object.assign(doc.data.task, { status: 'FAIL', failReason: reason, finishTime: nowSec() });
  return finish(d, doc);
}

/** Retries a failed step later, or fails the task when the error is the request's fault. */
function stepFailed(
  d: PollerDeps,
  doc: Doc,
  what: string,
  err: GatewayError,
  opts: { maxFailures?: number; always?: boolean } = {},
): Promise<void> {
  const rec = doc.data;
  rec.failures++;
  rec.lastError = `${what}: ${err.message}`;
  if ((!opts.always && !isRetryable(err)) || rec.failures >= (opts.maxFailures ?? Infinity))
    return fail(d, doc, rec.lastError);
  d.log.warn(
    { task_id: rec.task.id, provider: rec.provider, failures: rec.failures, err: rec.lastError },
    'task step failed; retrying',
  );
  return save(d, doc, backoff(d, rec, err.retryAfter));
}

async function compose(d: PollerDeps, doc: Doc): Promise<void> {
  const rec = doc.data;
  const sub = rec.submission;
  const model = sub.kind === 'lyrics' ? rec.model : d.runtime.config.tune.lyrics_model;
  if (sub.kind === 'music' && (sub.mode.type !== 'inspiration' || !model)) {
    // The lyrics model was removed by a reload: the music provider writes the words itself.
    rec.phase = 'submit';
    return submit(d, doc);
  }
  const theme = sub.kind === 'lyrics' ? sub.prompt : sub.mode.type === 'inspiration' ? sub.mode.description : '';
  let written;
  try {
    written = await writeLyrics(
      d.runtime,
      model ?? '',
      theme,
      sub.kind === 'lyrics' ? 'lyrics' : 'song',
      d.signal,
      d.breakers,
    );
  } catch (e) {
    // Cut short by shutdown: leave the task as it was; it is composed again after the restart.
    if (d.signal.aborted) return;
    return stepFailed(d, doc, `lyrics model '${model}' failed`, toGatewayError(e), { maxFailures: composeAttempts });
  }
  rec.failures = 0;
  if (sub.kind === 'lyrics') {
    Object.assign(rec.task, { status: 'SUCCESS', progress: 100, finishTime: nowSec() });
    rec.task.output = {
      kind: 'lyrics',
      lyrics: { id: randomUUID(), text: written.text, title: written.title, status: 'complete' },
    };
    return finish(d, doc);
  }
  const composed: MusicSubmission = {
    ...sub,
    mode: { type: 'custom', lyrics: sub.instrumental ? '' : written.text, title: written.title, tags: written.tags },
  };
  rec.inspiredBy = theme;
  rec.submission = composed;
  rec.phase = 'submit';
  return submit(d, doc);
}

/** Submits a composed task through the model's routes (retries, breakers, fallbacks), or retries it later. */
async function submit(d: PollerDeps, doc: Doc): Promise<void> {
  const rec = doc.data;
  // A continuation stays with the provider that made its clip.
  const routes = d.runtime.router
    .plan(rec.model)
    .filter(
      (r) =>
        d.providers.has(r.provider) &&
        (rec.submission.kind !== 'music' || rec.submission.mode.type !== 'continuation' || r.provider === rec.provider),
    );
  if (routes.length === 0) return fail(d, doc, `music provider '${rec.provider}' is no longer enabled`);
  try {
    const taken = await submitOnRoutes(d.providers, rec.model, routes, rec.submission, d.signal, d.breakers);
    Object.assign(rec, {
      provider: taken.route.provider,
      upstreamModel: taken.route.model,
      upstreamId: taken.upstreamId,
    });
  } catch (e) {
    if (d.signal.aborted) return;
    return stepFailed(d, doc, `provider '${rec.provider}' refused the submission`, toGatewayError(e));
  }
  rec.phase = 'poll';
  rec.failures = 0;
  return save(d, doc, Date.now() + d.runtime.config.tune.poll_interval_ms);
}

/** The upstream's songs or lyrics, with the inspiration text polygate composed from kept visible. */
function outputOf(rec: TaskRecord, view: UpstreamTaskView): TaskOutput {
  const out = view.output;
  if (out.kind === 'lyrics') return rec.task.action === 'LYRICS' ? out : emptyOutput(rec.task.action);
  if (rec.task.action !== 'MUSIC') return emptyOutput(rec.task.action);
  const inspiredBy = rec.inspiredBy;
  if (!inspiredBy) return out;
  return {
    kind: 'songs',
    songs: out.songs.map((s) => ({
      ...s,
      metadata: { ...s.metadata, gptDescriptionPrompt: s.metadata.gptDescriptionPrompt || inspiredBy },
    })),
  };
}

async function apply(d: PollerDeps, doc: Doc, view: UpstreamTaskView): Promise<void> {
  const rec = doc.data;
  const t = rec.task;
  rec.failures = 0;
  rec.lastError = undefined;
  t.status = view.status;
  t.progress = view.progress;
  t.startTime = view.startTime || t.startTime;
  t.output = outputOf(rec, view);
  if (!isTerminal(view.status)) {
    t.finishTime = 0;
    return save(d, doc, Date.now() + d.runtime.config.tune.poll_interval_ms);
  }
  t.finishTime = Math.max(view.finishTime || nowSec(), t.startTime);
  t.failReason = view.status === 'FAIL' ? view.failReason || `upstream reported ${view.rawStatus}` : '';
  return finish(d, doc);
}

async function pollGroup(d: PollerDeps, providerName: string, docs: Doc[]): Promise<void> {
  const p = d.providers.get(providerName);
  for (let i = 0; i < docs.length; i += batchSize) {
    const batch = docs.slice(i, i + batchSize);
    let views: Map<string, UpstreamTaskView>;
    try {
      if (!p) throw new GatewayError('unavailable', `music provider '${providerName}' is not enabled`);
      views = new Map((await p.fetch(batch.map((doc) => doc.data.upstreamId))).map((v) => [v.id, v]));
      upstreamPollsTotal.inc({ provider: providerName, outcome: 'ok' });
    } catch (e) {
      upstreamPollsTotal.inc({ provider: providerName, outcome: 'error' });
      // Any poll failure (even a 4xx: the upstream may be misbehaving briefly) is retried with
      // backoff until the task deadline; the task itself was accepted.
      const err = toGatewayError(e);
      await Promise.all(
        batch.map((doc) => stepFailed(d, doc, `polling provider '${providerName}' failed`, err, { always: true })),
      );
      continue;
    }
    await Promise.all(
      batch.map((doc) => {
        const view = views.get(doc.data.upstreamId);
        if (view) return apply(d, doc, view);
        doc.data.failures++;
        doc.data.lastError = `provider '${providerName}' did not report task '${doc.data.upstreamId}'`;
        return save(d, doc, backoff(d, doc.data));
      }),
    );
  }
}

/** One step for each claimed task; polls are grouped into one batched query per provider. */
export async function advanceTasks(docs: Doc[], d: PollerDeps): Promise<void> {
  const polls = new Map<string, Doc[]>();
  const steps: Promise<void>[] = [];
  const deadlineS = d.runtime.config.tune.task_deadline_s;
  for (const doc of docs) {
    const rec = doc.data;
    if (Date.now() >= rec.deadlineAt && rec.phase !== 'done') {
      const last = rec.lastError ? `; last error: ${rec.lastError}` : '';
      steps.push(
        fail(
          d,
          doc,
          `task exceeded the deadline: not finished within ${deadlineS} s of submission (tune.task_deadline_s)${last}`,
        ),
      );
      continue;
    }
    switch (rec.phase) {
      case 'compose':
        steps.push(compose(d, doc));
        break;
      case 'submit':
        steps.push(submit(d, doc));
        break;
      case 'poll':
        polls.set(rec.provider, [...(polls.get(rec.provider) ?? []), doc]);
        break;
      case 'done':
        steps.push(save(d, doc, null));
        break;
      default: {
        const never: never = rec.phase;
        throw new Error(`unknown task phase ${String(never)}`);
      }
    }
  }
  for (const [name, group] of polls) steps.push(pollGroup(d, name, group));
  const results = await Promise.allSettled(steps);
  for (const r of results) if (r.status === 'rejected') d.log.error({ err: r.reason }, 'task step crashed');
}
