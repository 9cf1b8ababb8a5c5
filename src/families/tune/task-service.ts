// Submissions and queries of the `tune` format, in IR terms: which provider serves a task, what is stored,
// what a workspace may see. HTTP lives in tune-routes.ts; background work in task-runner.ts.
import { randomUUID } from 'node:crypto';
import type { ApiKey } from '../../services/auth/key-ring.ts';
import { GatewayError, invalid } from '../../ir/gateway-error.ts';
import {
  emptyOutput,
  type LyricsSubmission,
  type MusicSubmission,
  type MusicTask,
  type TaskAction,
  type TaskSubmission,
} from '../../ir/music-task.ts';
import { tasksTotal } from '../../infra/metrics/registry.ts';
import { checkOutboundUrl, SsrfRefused } from '../../infra/outbound/ssrf-guard.ts';
import type { Route } from '../../services/routing/model-router.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';
import type { Store } from '../../infra/store/store.ts';
import type { BreakerBoard } from '../../services/resilience/breaker-board.ts';
import { submitOnRoutes } from './submit-on-routes.ts';
import { TaskStore, type TaskPhase, type TaskRecord } from './task-store.ts';
import { tuneProvidersOf } from './tune-providers.ts';

export type Submitted = { taskId: string; provider: string; upstreamModel: string };

type Ctx = { runtime: Runtime; store: Store; key: ApiKey; breakers: BreakerBoard };

/** Listeners by the store the tasks are queued in: one gateway's runner is not woken by another's tasks (src/services/runtime/services.ts). */
const listeners = new WeakMap<Store, Set<() => void>>();
/** The task runner listens, so a task queued for background work starts at once, not at the next tick. */
export function onTaskQueued(store: Store, fn: () => void): () => void {
  let set = listeners.get(store);
  if (!set) listeners.set(store, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** Refuses hooks on internal addresses (unless allowed); the 400 names notify_hook. */
async function checkHook(runtime: Runtime, hook: string | undefined): Promise<void> {
  if (hook === undefined) return;
  try {
    await checkOutboundUrl(hook, runtime.config.outbound.allow_private_addresses);
  } catch (e) {
    if (e instanceof SsrfRefused)
      throw invalid('notify_hook', `notify_hook: refused: ${e.message} (see outbound.allow_private_addresses)`);
    throw e;
  }
}

/** The music model's routes that reach an enabled music provider, in the order to try. */
function musicRoutes(c: Ctx, model: string): Route[] {
  const providers = tuneProvidersOf(c.runtime, c.store);
  const routes = c.runtime.router.plan(model).filter((r) => providers.has(r.provider));
  if (routes.length === 0)
    throw new GatewayError(
      'unavailable',
      `music model '${model}' has no enabled music provider (a tune or sandbox-tune provider under models.${model}.routes)`,
    );
  return routes;
}

function newTask(action: TaskAction, hook: string | undefined): MusicTask {
  const now = Math.floor(Date.now() / 1000);
  return {
    id: randomUUID(),
    action,
    status: 'IN_PROGRESS',
    failReason: '',
    submitTime: now,
    startTime: now,
    finishTime: 0,
    progress: 0,
    notifyHook: hook ?? '',
    output: emptyOutput(action),
  };
}

async function store(c: Ctx, rec: TaskRecord, dueAt: number): Promise<Submitted> {
  await new TaskStore(c.store).create(rec, c.key.workspace, dueAt);
  tasksTotal.inc({ provider: rec.provider || 'none', action: rec.task.action, status: 'IN_PROGRESS' });
  for (const fn of listeners.get(c.store) ?? []) fn();
  return { taskId: rec.task.id, provider: rec.provider, upstreamModel: rec.upstreamModel };
}

function record(
  c: Ctx,
  task: MusicTask,
  fields: {
    model: string;
    provider: string;
    upstreamModel: string;
    upstreamId: string;
    submission: TaskSubmission;
    phase: TaskPhase;
  },
): TaskRecord {
  return {
    task,
    keyId: c.key.id,
    ...fields,
    deadlineAt: Date.now() + c.runtime.config.tune.task_deadline_s * 1000,
    failures: 0,
  };
}

/** A continuation: the task and clip must be the caller's, finished, and the offset inside the clip. */
async function continuationOf(
  c: Ctx,
  sub: MusicSubmission,
  model: string,
): Promise<{ routes: Route[]; submission: MusicSubmission }> {
  const m = sub.mode;
  if (m.type !== 'continuation') throw new Error('not a continuation');
  const src = await new TaskStore(c.store).get(m.taskId, c.key.workspace);
  if (!src) throw invalid('task_id', `task_id: no task '${m.taskId}' in this workspace`);
  if (src.task.action !== 'MUSIC' || src.task.output.kind !== 'songs')
    throw invalid(
      'task_id',
      `task_id: task '${m.taskId}' is a ${src.task.action} task; a continuation extends a MUSIC task`,
    );
  if (src.task.status !== 'SUCCESS')
    throw invalid(
      'task_id',
      `task_id: task '${m.taskId}' has not succeeded (status ${src.task.status}); only finished songs can be continued`,
    );
  const clip = src.task.output.songs.find((s) => s.id === m.clipId);
  if (!clip) throw invalid('continue_clip_id', `continue_clip_id: task '${m.taskId}' has no clip '${m.clipId}'`);
  const d = clip.metadata.duration;
  if (d !== null && m.continueAt > d)
    throw invalid('continue_at', `continue_at: ${m.continueAt} s is past the end of clip '${m.clipId}' (${d} s)`);
  // The clip lives at the provider that made it: continue there.
  const routes = musicRoutes(c, model).filter((r) => r.provider === src.provider);
  if (routes.length === 0)
    throw invalid(
      'mv',
      `mv: model '${model}' is not served by provider '${src.provider}', which made task '${m.taskId}'`,
    );
  return { routes, submission: { ...sub, mode: { ...m, taskId: src.upstreamId } } };
}

export async function submitMusic(c: Ctx, sub: MusicSubmission): Promise<Submitted> {
  const cfg = c.runtime.config.tune;
  const model = sub.model ?? cfg.default_model;
  if (!cfg.music_models.includes(model))
    throw invalid(
      'mv',
      `mv: '${model}' is not a music model here; use one of ${cfg.music_models.map((m) => `'${m}'`).join(', ')}`,
    );
  if (!c.key.allows(model))
    throw new GatewayError('permission', `mv: this API key may not use model '${model}'`, { param: 'mv' });
  await checkHook(c.runtime, sub.notifyHook);
  const task = newTask('MUSIC', sub.notifyHook);
  let routes: Route[];
  let submission: MusicSubmission = sub;
  if (sub.mode.type === 'continuation') ({ routes, submission } = await continuationOf(c, sub, model));
  else routes = musicRoutes(c, model);

  if (sub.mode.type === 'inspiration' && cfg.lyrics_model) {
    // The chat model writes first; the runner then submits in custom mode.
    const [route] = routes;
    const rec = record(c, task, {
      model,
      provider: route.provider,
      upstreamModel: route.model,
      upstreamId: '',
      submission,
      phase: 'compose',
    });
    return store(c, rec, Date.now());
  }
  // The task is the caller's once submitted, whether or not the caller still waits for its id.
  const { route, upstreamId } = await submitOnRoutes(
    tuneProvidersOf(c.runtime, c.store),
    model,
    routes,
    submission,
    new AbortController().signal,
    c.breakers,
  );
  const rec = record(c, task, {
    model,
    provider: route.provider,
    upstreamModel: route.model,
    upstreamId,
    submission,
    phase: 'poll',
  });
  return store(c, rec, Date.now() + cfg.poll_interval_ms);
}

export async function submitLyrics(c: Ctx, sub: LyricsSubmission): Promise<Submitted> {
  const cfg = c.runtime.config.tune;
  await checkHook(c.runtime, sub.notifyHook);
  const task = newTask('LYRICS', sub.notifyHook);
  if (cfg.lyrics_model) {
    if (!c.runtime.router.has(cfg.lyrics_model))
      throw new GatewayError('unavailable', `tune.lyrics_model '${cfg.lyrics_model}' is not a model of this gateway`);
    const rec = record(c, task, {
      model: cfg.lyrics_model,
      provider: '',
      upstreamModel: '',
      upstreamId: '',
      submission: sub,
      phase: 'compose',
    });
    return store(c, rec, Date.now());
  }
  const { route, upstreamId } = await submitOnRoutes(
    tuneProvidersOf(c.runtime, c.store),
    cfg.default_model,
    musicRoutes(c, cfg.default_model),
    sub,
    new AbortController().signal,
    c.breakers,
  );
  const rec = record(c, task, {
    model: cfg.default_model,
    provider: route.provider,
    upstreamModel: route.model,
    upstreamId,
    submission: sub,
    phase: 'poll',
  });
  return store(c, rec, Date.now() + cfg.poll_interval_ms);
}

/** One task of the caller's workspace; another workspace's id is as unknown as a made-up one. */
export async function getTask(s: Store, workspace: string, id: string): Promise<MusicTask> {
  const rec = await new TaskStore(s).get(id, workspace);
  if (!rec) throw new GatewayError('not-found', `task '${id}' not found`, { param: 'task_id' });
  return rec.task;
}

/** The caller's tasks among `ids`, in the order asked, without unknown, foreign or filtered-out ones. */
export async function fetchTasks(
  s: Store,
  workspace: string,
  ids: string[],
  action: TaskAction | undefined,
): Promise<MusicTask[]> {
  const ts = new TaskStore(s);
  const out: MusicTask[] = [];
  for (const id of new Set(ids)) {
    const rec = await ts.get(id, workspace);
    if (rec && (action === undefined || rec.task.action === action)) out.push(rec.task);
  }
  return out;
}
