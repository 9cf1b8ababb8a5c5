// The request log of the `memory` ledger store: its records array, read newest first.
import type { UsageRecord } from './usage-record.ts';
import {
  isAfter,
  matches,
  type LoggedRecord,
  type LogPage,
  type RequestContent,
  type RequestLogStore,
  type RequestQuery,
  type StoredContent,
} from './request-log.ts';

export class MemoryRequestLog implements RequestLogStore {
  readonly #records: readonly UsageRecord[];
  /** A sequence number per record, in append order: the tie-breaker of records of the same millisecond. */
  readonly #seq = new WeakMap<UsageRecord, number>();
  #next = 0;
  readonly #content = new Map<string, StoredContent>();

  constructor(records: readonly UsageRecord[]) {
    this.#records = records;
  }

  /** Records are appended in order and pruned from the front, so numbering the unnumbered ones in array order keeps it. */
  #numbered(): { r: UsageRecord; seq: number }[] {
    return this.#records.map((r) => {
      let seq = this.#seq.get(r);
      if (seq === undefined) this.#seq.set(r, (seq = this.#next++));
      return { r, seq };
    });
  }

  #logged(r: UsageRecord): LoggedRecord {
    const c = this.#content.get(r.request_id);
    return { record: r, hasContent: c !== undefined && c.ts === r.ts };
  }

  async list(q: RequestQuery): Promise<LogPage> {
    const all = this.#numbered()
      .filter(({ r, seq }) => matches(r, q) && isAfter(r.ts, seq, q.after))
      .sort((a, b) => b.r.ts - a.r.ts || b.seq - a.seq);
    const page = all.slice(0, q.limit);
    const last = page.at(-1);
    return {
      records: page.map(({ r }) => this.#logged(r)),
      next: all.length > q.limit && last ? { ts: last.r.ts, tie: last.seq } : undefined,
    };
  }

  async get(requestId: string): Promise<LoggedRecord | undefined> {
    let found: UsageRecord | undefined;
    for (const r of this.#records) if (r.request_id === requestId && (!found || r.ts >= found.ts)) found = r;
    return found && this.#logged(found);
  }

  async putContent(c: StoredContent): Promise<void> {
    this.#content.set(c.request_id, c);
  }

  async content(requestId: string, ts: number): Promise<RequestContent | undefined> {
    const c = this.#content.get(requestId);
    return c !== undefined && c.ts === ts ? c : undefined;
  }

  async deleteContent(requestId: string): Promise<void> {
    this.#content.delete(requestId);
  }

  /** Content of days before `day` goes with its records. */
  prune(day: string): void {
    for (const [id, c] of this.#content) if (c.day < day) this.#content.delete(id);
  }
}
