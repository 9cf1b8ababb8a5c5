import { Worker } from 'node:worker_threads';
import { batchTotals, type LedgerStore, type PeriodTotal, type RowFilter, type SpendTotals } from './ledger-store.ts';
import { valuesOf } from './sqlite-ledger-store.ts';
import type { UsageRecord, UsageRow } from './usage-record.ts';

/** What the ledger's thread is asked (src/services/usage/sqlite-ledger-worker.ts); `id` pairs it with its reply. */
export type LedgerCall = { id: number } & (
  | { op: 'append'; values: (string | number)[]; totals: PeriodTotal[] }
  | { op: 'totals'; key: string; day: string; month: string }
  | { op: 'rows'; filter: RowFilter }
  | { op: 'prune'; day: string }
  | { op: 'close' }
);
export type LedgerReply = { id: number; value?: unknown; error?: string };

/** Distributes `Omit` over the union, so each call keeps its own fields. */
type CallOf<C> = C extends unknown ? Omit<C, 'id'> : never;

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };
/** A ledger thread and the calls it has not answered yet. */
type LedgerThread = { worker: Worker; pending: Map<number, Pending> };

/**
 * Records per append. The thread that serves requests only flattens a batch and posts it (under
 * 2 µs a record, bench/ledger-flush-stall.ts); the inserts run on the ledger's thread. A few hundred
 * keep each of those steps well under a millisecond, with other requests served between two.
 */
const workerAppendRows = 256;

/**
 * The `sqlite` driver's ledger (the same tables as SqliteLedgerStore, src/services/usage/sqlite-ledger-store.ts)
 * written by a thread of its own, so no insert or checkpoint holds the event loop. The thread is
 * started on first use and again after it died: a call in flight when it died fails (an append
 * then stays queued in the ledger and is tried again), later calls go to the new thread.
 */
export class SqliteWorkerLedgerStore implements LedgerStore {
  readonly local = true;
  readonly maxAppend = workerAppendRows;
  readonly #path: string;
  #worker: LedgerThread | undefined;
  #nextId = 1;
  #closed = false;

  constructor(path: string) {
    this.#path = path;
  }

  async append(records: UsageRecord[]): Promise<void> {
    await this.#call({ op: 'append', values: valuesOf(records), totals: batchTotals(records) });
  }

  totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }> {
    return this.#call({ op: 'totals', key, day, month }) as Promise<{ day: SpendTotals; month: SpendTotals }>;
  }

  rows(filter: RowFilter): Promise<UsageRow[]> {
    return this.#call({ op: 'rows', filter }) as Promise<UsageRow[]>;
  }

  async prune(day: string): Promise<void> {
    await this.#call({ op: 'prune', day });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const t = this.#worker;
    if (!t) return;
    await this.#send(t, { op: 'close' }).catch(() => {});
    await t.worker.terminate();
  }

  /** The thread, for a test that stops it as a crash would. */
  get thread(): Worker | undefined {
    return this.#worker?.worker;
  }

  #call(call: CallOf<LedgerCall>): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('usage ledger closed'));
    return this.#send((this.#worker ??= this.#start()), call);
  }

  #send(w: LedgerThread, call: CallOf<LedgerCall>): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      w.pending.set(id, { resolve, reject });
      // Held open only while a reply is awaited: an idle ledger thread never keeps the process alive.
      if (w.pending.size === 1) w.worker.ref();
      w.worker.postMessage({ ...call, id });
    });
  }

  #start(): LedgerThread {
    const worker = new Worker(new URL('./sqlite-ledger-worker.ts', import.meta.url), { workerData: { path: this.#path } });
    worker.unref();
    const t: LedgerThread = { worker, pending: new Map() };
    const settle = (id: number): Pending | undefined => {
      const p = t.pending.get(id);
      t.pending.delete(id);
      if (t.pending.size === 0) worker.unref();
      return p;
    };
    worker.on('message', (reply: LedgerReply) => {
      const p = settle(reply.id);
      if (reply.error !== undefined) p?.reject(new Error(reply.error));
      else p?.resolve(reply.value);
    });
    // Its calls in flight fail; the next call starts a new thread.
    const fail = (err: Error): void => {
      if (this.#worker === t) this.#worker = undefined;
      for (const id of [...t.pending.keys()]) settle(id)?.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the usage ledger's thread exited (${code})`)));
    return t;
  }
}
