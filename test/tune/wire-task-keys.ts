// The fields of a task object in the order the spec lists them: what encodeTask writes and what
// GET /tune/fetch/:id answers, so both tests hold the gateway to one list.
import type { WireTask } from './tune-helpers.ts';

export const wireTaskKeys: Array<keyof WireTask> = [
  'task_id',
  'notify_hook',
  'action',
  'status',
  'fail_reason',
  'submit_time',
  'start_time',
  'finish_time',
  'progress',
  'data',
];
