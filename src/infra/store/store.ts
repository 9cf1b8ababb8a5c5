// The one storage interface behind every stateful feature: music tasks and their callback queue
// (`tune`), stored responses (`openai-responses`), and whatever comes next.
//
// Why a generic namespaced document store rather than one typed interface per record kind:
// each driver (memory, sqlite, redis) then implements six operations once, instead of every
// feature multiplying the driver count by its own queries. Typed access lives with each feature
// (e.g. src/families/tune/task-store.ts wraps namespace `tune.tasks` with TaskRecord). The operations
// are chosen so that each maps onto one atomic step in every driver:
//
// - get / create / put / delete by (namespace, id): a sqlite row, a Redis hash or string.
//   `create` is insert-if-absent (Redis SET NX), so a record that must exist once (a callback
//   delivery and its delivery id) is made exactly once even when the step that makes it repeats
//   after a crash.
// - Workspace scoping is part of the key space: a read with a workspace answers "absent" for a
//   document of another workspace, so a foreign id and an unknown id cannot be told apart.
// - Background work is a `dueAt` time on the document itself (a sqlite index, a Redis sorted
//   set). `claimDue` atomically leases due documents to one worker for `leaseMs` (sqlite:
//   one UPDATE … RETURNING in a transaction; Redis: a Lua script over the sorted set), so with
//   several gateway instances one of them polls a task or sends a callback. A worker writes back
//   with its claim token; the write fails if the lease was lost (it expired and another worker
//   claimed), which turns a stale worker's late write into a no-op instead of a lost update.
//   A worker that dies simply lets its lease expire and the work is picked up again: delivery is
//   at least once, and idempotent steps (same delivery id, same upstream task) make that safe.
// - `expiresAt` lets records age out (stored responses) without a separate sweeper per feature.
// - Counted writes (`putCounted`) add the documents' bytes to their workspace's total, kept exactly
//   by the driver in the same atomic step as the write (memory: a map; sqlite: a counter row in the
//   same transaction; Redis: INCRBY in the same script). Whatever removes a counted document
//   (delete, an overwrite, expiry) takes its bytes off again. That total is what
//   `limits.max_workspace_stored_bytes` bounds (docs/resilience.md "Bounded work per request").

/** One stored record. `data` is JSON-serialisable. */
export type Doc<T> = {
  id: string;
  /** Owner workspace; '' for records that belong to no workspace (internal queues). */
  workspace: string;
  data: T;
  /** Epoch ms at which background work on this record is due; null when there is none. */
  dueAt: number | null;
  /** Epoch ms after which the record reads as absent; null to keep it. */
  expiresAt?: number | null;
};

/** A document leased by `claimDue`; `token` proves the lease on write-back. */
export type Claimed<T> = Doc<T> & { token: string };

export type ClaimOptions = {
  now: number;
  /** At most this many documents per call. */
  limit: number;
  /** How long the lease holds if the worker never writes back (it crashed). */
  leaseMs: number;
};

/** One document of a counted write. */
export type CountedDoc = { ns: string; doc: Doc<unknown> };

/**
 * A counted write that would take its workspace past the limit. Nothing was written. `used` is
 * what the workspace held before (expired documents already taken off), `adding` the write's size.
 */
export class StoreQuotaError extends Error {
  readonly workspace: string;
  readonly used: number;
  readonly adding: number;
  readonly limit: number;
  constructor(workspace: string, used: number, adding: number, limit: number) {
    super(`workspace '${workspace}' stores ${used} bytes; ${adding} more would pass its limit of ${limit}`);
    this.workspace = workspace;
    this.used = used;
    this.adding = adding;
    this.limit = limit;
  }
}

/** What a counted document weighs: the UTF-8 bytes of its data as JSON, the same in every driver. */
export const countedBytes = (json: string): number => Buffer.byteLength(json);

export type StoreDriver = 'memory' | 'sqlite' | 'redis';

export interface Store {
  readonly driver: StoreDriver;
  /** With `workspace`, a document of another workspace reads as absent. */
  get<T>(ns: string, id: string, workspace?: string): Promise<Doc<T> | undefined>;
  /** Inserts the document unless its id exists; true when inserted. */
  create<T>(ns: string, doc: Doc<T>): Promise<boolean>;
  /**
   * Writes the whole document and releases any lease. With `token`, writes only while that claim
   * still holds the document, and answers false otherwise (nothing written).
   */
  put<T>(ns: string, doc: Doc<T>, opts?: { token?: string }): Promise<boolean>;
  delete(ns: string, id: string): Promise<void>;
  /**
   * Writes all `docs` (each in `workspace`) as one step, counting their bytes against the
   * workspace, or none of them: throws StoreQuotaError when the workspace's counted bytes, less
   * what these documents replace, plus theirs, would exceed `limit`. Expired documents of the
   * workspace are taken off before the check, so they never cause a refusal.
   */
  putCounted(workspace: string, docs: CountedDoc[], limit: number): Promise<void>;
  /** The workspace's counted bytes now (documents written with putCounted and still stored). */
  storedBytes(workspace: string): Promise<number>;
  /** Leases up to `limit` documents whose `dueAt` has come and that no live lease holds, oldest due first. */
  claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]>;
  close(): Promise<void>;
}
