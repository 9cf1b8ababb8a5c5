import { randomUUID } from 'node:crypto';
import {
  countedBytes,
  StoreQuotaError,
  type ClaimOptions,
  type Claimed,
  type CountedDoc,
  type Doc,
  type Store,
} from './store.ts';

/**
 * `counted`: the bytes this row adds to its workspace's total (0 unless written by putCounted).
 * The document is kept as its JSON text only: `doc` holds its other fields, not the caller's
 * `data` object, which would otherwise stay alive beside its text and double what a row holds
 * past what is counted (a Responses WebSocket's memory measured at 3x its bound, issue #30).
 */
type Row = {
  doc: Omit<Doc<unknown>, 'data'>;
  json: string;
  leaseToken: string | null;
  leaseUntil: number;
  counted: number;
};

/**
 * The `memory` driver: one process, nothing survives a restart. Documents are kept as JSON text
 * so callers get copies, exactly as from the other drivers (no aliasing bugs that only show here).
 */
export class MemoryStore implements Store {
  readonly driver = 'memory';
  readonly #spaces = new Map<string, Map<string, Row>>();
  readonly #now: () => number;
  /** Counted bytes per workspace: the sum of `counted` over the rows present. */
  readonly #usage = new Map<string, number>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #space(ns: string): Map<string, Row> {
    let m = this.#spaces.get(ns);
    if (!m) this.#spaces.set(ns, (m = new Map()));
    return m;
  }

  #live(ns: string, id: string): Row | undefined {
    const row = this.#spaces.get(ns)?.get(id);
    if (!row) return undefined;
    const exp = row.doc.expiresAt;
    if (exp != null && exp <= this.#now()) {
      this.#remove(ns, id);
      return undefined;
    }
    return row;
  }

  /** Every removal and overwrite goes through here, so the workspace totals stay exact. */
  #remove(ns: string, id: string): void {
    const row = this.#spaces.get(ns)?.get(id);
    if (!row) return;
    this.#spaces.get(ns)?.delete(id);
    if (row.counted > 0) this.#usage.set(row.doc.workspace, (this.#usage.get(row.doc.workspace) ?? 0) - row.counted);
  }

  #set(ns: string, doc: Doc<unknown>, json: string, counted: number): void {
    this.#remove(ns, doc.id);
    const { data: _data, ...fields } = doc;
    this.#space(ns).set(doc.id, {
      doc: { ...fields, expiresAt: doc.expiresAt ?? null },
      json,
      leaseToken: null,
      leaseUntil: 0,
      counted,
    });
    if (counted > 0) this.#usage.set(doc.workspace, (this.#usage.get(doc.workspace) ?? 0) + counted);
  }

  static #copy<T>(row: Row): Doc<T> {
    return { ...row.doc, data: JSON.parse(row.json) as T };
  }

  async get<T>(ns: string, id: string, workspace?: string): Promise<Doc<T> | undefined> {
    const row = this.#live(ns, id);
    if (!row || (workspace !== undefined && row.doc.workspace !== workspace)) return undefined;
    return MemoryStore.#copy<T>(row);
  }

  async create<T>(ns: string, doc: Doc<T>): Promise<boolean> {
    if (this.#live(ns, doc.id)) return false;
    this.#set(ns, doc, JSON.stringify(doc.data), 0);
    return true;
  }

  async put<T>(ns: string, doc: Doc<T>, opts: { token?: string } = {}): Promise<boolean> {
    const row = this.#live(ns, doc.id);
    if (opts.token !== undefined && row?.leaseToken !== opts.token) return false;
    this.#set(ns, doc, JSON.stringify(doc.data), 0);
    return true;
  }

  async delete(ns: string, id: string): Promise<void> {
    this.#remove(ns, id);
  }

  async putCounted(workspace: string, docs: CountedDoc[], limit: number): Promise<void> {
    const jsons = docs.map((d) => JSON.stringify(d.doc.data));
    const adding = jsons.reduce((n, j) => n + countedBytes(j), 0);
    const replaced = (): number => docs.reduce((n, d) => n + (this.#spaces.get(d.ns)?.get(d.doc.id)?.counted ?? 0), 0);
    if ((this.#usage.get(workspace) ?? 0) - replaced() + adding > limit) {
      // Only on the way to a refusal: expired documents of the workspace are taken off first.
      for (const [ns, space] of this.#spaces)
        for (const [id, row] of space) if (row.doc.workspace === workspace && row.counted > 0) this.#live(ns, id);
      const used = this.#usage.get(workspace) ?? 0;
      if (used - replaced() + adding > limit) throw new StoreQuotaError(workspace, used, adding, limit);
    }
    docs.forEach((d, i) => this.#set(d.ns, { ...d.doc, workspace }, jsons[i], countedBytes(jsons[i])));
  }

  /** Counted bytes of every workspace, at once (a Responses WebSocket's memory accounts with it). */
  get countedTotal(): number {
    let n = 0;
    for (const used of this.#usage.values()) n += used;
    return n;
  }

  async storedBytes(workspace: string): Promise<number> {
    return this.#usage.get(workspace) ?? 0;
  }

  async claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]> {
    const token = randomUUID();
    const due = [...(this.#spaces.get(ns)?.values() ?? [])]
      .filter(
        (r) =>
          r.doc.dueAt !== null &&
          r.doc.dueAt <= opts.now &&
          (r.leaseToken === null || r.leaseUntil <= opts.now) &&
          this.#live(ns, r.doc.id),
      )
      .sort((a, b) => (a.doc.dueAt ?? 0) - (b.doc.dueAt ?? 0))
      .slice(0, opts.limit);
    return due.map((r) => {
      r.leaseToken = token;
      r.leaseUntil = opts.now + opts.leaseMs;
      return { ...MemoryStore.#copy<T>(r), token };
    });
  }

  async close(): Promise<void> {
    this.#spaces.clear();
    this.#usage.clear();
  }
}
