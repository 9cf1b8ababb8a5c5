import type { TaskSubmission, UpstreamTaskView } from '../../ir/music-task.ts';

/**
 * A music upstream: the `tune` HTTP protocol (the `tune` format spoken to a real service) or the built-in
 * `sandbox-tune`. Both are polled the same way, so the task runner has one code path.
 */
export interface TuneProvider {
  readonly name: string;
  readonly type: 'tune' | 'sandbox-tune';
  /**
   * Starts a task; resolves with the provider's own task id. Rejects with a GatewayError (an
   * upstream 4xx keeps its status: the request is at fault; 5xx and network failures are 502/504).
   * A continuation's `taskId` is already the provider's id.
   */
  submit(submission: TaskSubmission, upstreamModel: string): Promise<string>;
  /** One batched query. Ids the provider does not know are simply absent from the answer. */
  fetch(upstreamIds: string[]): Promise<UpstreamTaskView[]>;
}
