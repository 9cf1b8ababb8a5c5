import { randomUUID } from 'node:crypto';
import type { ClaimOptions, Claimed, Doc, Store } from './store.ts';

type Row = { doc: Doc<unknown>; json: string; leaseToken: string | null; leaseUntil: number };

/**
 * The `memory` driver: one process, nothing survives a restart. Documents are kept as JSON text
 * so callers get copies, exactly as from the other drivers (no aliasing bugs that only show here).
 */
export class MemoryStore implements Store {
  readonly driver = 'memory';
  readonly #spaces = new Map<string, Map<string, Row>>();
  readonly #now: () => number;

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
      this.#spaces.get(ns)?.delete(id);
      return undefined;
    }
    return row;
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
    this.#space(ns).set(doc.id, { doc: { ...doc, expiresAt: doc.expiresAt ?? null }, json: JSON.stringify(doc.data), leaseToken: null, leaseUntil: 0 });
    return true;
  }

  async put<T>(ns: string, doc: Doc<T>, opts: { token?: string } = {}): Promise<boolean> {
    const row = this.#live(ns, doc.id);
    if (opts.token !== undefined && row?.leaseToken !== opts.token) return false;
    this.#space(ns).set(doc.id, { doc: { ...doc, expiresAt: doc.expiresAt ?? null }, json: JSON.stringify(doc.data), leaseToken: null, leaseUntil: 0 });
    return true;
  }

  async delete(ns: string, id: string): Promise<void> {
    this.#spaces.get(ns)?.delete(id);
  }

  async claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]> {
    const token = randomUUID();
    const due = [...(this.#spaces.get(ns)?.values() ?? [])]
      .filter((r) => r.doc.dueAt !== null && r.doc.dueAt <= opts.now && (r.leaseToken === null || r.leaseUntil <= opts.now) && this.#live(ns, r.doc.id))
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
  }
}
