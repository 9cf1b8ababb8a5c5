// Typed access to the tune namespaces of the process store: tasks and their callback queue.
import type { MusicTask, TaskSubmission } from '../../ir/music-task.ts';
import type { Claimed, Doc, Store } from '../../infra/store/store.ts';

/**
 * Where a task is in polygate's own lifecycle (the client sees only IN_PROGRESS / SUCCESS / FAIL):
 * `compose` — a chat model writes lyrics (lyrics tasks, inspiration mode with tune.lyrics_model);
 * `submit` — to be sent to the music provider; `poll` — waiting on the provider; `done`.
 */
export type TaskPhase = 'compose' | 'submit' | 'poll' | 'done';

export type TaskRecord = {
  task: MusicTask;
  keyId: string;
  /** The client-facing music model (mv); '' for lyrics. */
  model: string;
  /** The music provider that runs the task; '' when a chat model alone serves it (lyrics). */
  provider: string;
  upstreamModel: string;
  /** The provider's task id; never shown to clients. '' until submitted. */
  upstreamId: string;
  /** What to send upstream; a continuation here already names the upstream's task id. */
  submission: TaskSubmission;
  phase: TaskPhase;
  /** Epoch ms after which an unfinished task fails. */
  deadlineAt: number;
  /** Consecutive failures of the current step, for backoff. */
  failures: number;
  lastError?: string;
  /** The inspiration text a chat model turned into lyrics, shown as gpt_description_prompt. */
  inspiredBy?: string;
};

export type CallbackState = 'pending' | 'delivered' | 'abandoned';

export type CallbackRecord = {
  /** Made once when the task finished and kept through retries and restarts. */
  deliveryId: string;
  taskId: string;
  url: string;
  /** The exact bytes to POST, so every attempt signs and sends the same body. */
  body: string;
  attempts: number;
  state: CallbackState;
  createdAt: number;
  lastError?: string;
  lastStatus?: number;
};

export const TASKS = 'tune.tasks';
/** One callback per task, keyed by task id: `create` makes it exactly once. */
export const CALLBACKS = 'tune.callbacks';

export class TaskStore {
  readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  /** A task of `workspace`; undefined for an unknown id and for another workspace's id alike. */
  async get(id: string, workspace: string): Promise<TaskRecord | undefined> {
    return (await this.store.get<TaskRecord>(TASKS, id, workspace))?.data;
  }

  async create(rec: TaskRecord, workspace: string, dueAt: number | null): Promise<void> {
    if (!(await this.store.create<TaskRecord>(TASKS, { id: rec.task.id, workspace, data: rec, dueAt }))) {
      throw new Error(`task id collision: ${rec.task.id}`);
    }
  }

  claimDue(now: number, limit: number, leaseMs: number): Promise<Claimed<TaskRecord>[]> {
    return this.store.claimDue<TaskRecord>(TASKS, { now, limit, leaseMs });
  }

  /** Writes back a claimed task; false when the lease was lost (another worker owns it now). */
  save(doc: Claimed<TaskRecord>, dueAt: number | null): Promise<boolean> {
    return this.store.put<TaskRecord>(
      TASKS,
      { id: doc.id, workspace: doc.workspace, data: doc.data, dueAt },
      { token: doc.token },
    );
  }

  /** Queues the callback of a finished task unless one exists (a repeated finish keeps the first). */
  enqueueCallback(rec: CallbackRecord, workspace: string, dueAt: number): Promise<boolean> {
    return this.store.create<CallbackRecord>(CALLBACKS, { id: rec.taskId, workspace, data: rec, dueAt });
  }

  claimCallbacks(now: number, limit: number, leaseMs: number): Promise<Claimed<CallbackRecord>[]> {
    return this.store.claimDue<CallbackRecord>(CALLBACKS, { now, limit, leaseMs });
  }

  saveCallback(doc: Claimed<CallbackRecord>, dueAt: number | null): Promise<boolean> {
    return this.store.put<CallbackRecord>(
      CALLBACKS,
      { id: doc.id, workspace: doc.workspace, data: doc.data, dueAt },
      { token: doc.token },
    );
  }

  getCallback(taskId: string): Promise<Doc<CallbackRecord> | undefined> {
    return this.store.get<CallbackRecord>(CALLBACKS, taskId);
  }
}
