// The request log of the `redis` ledger store. Layout (after the store's prefix, `polygate:`):
//   usage:log               sorted set, every score 0, member "<ts, 15 digits>:<8 hex>:<record JSON>":
//                           lexicographic order is time order, so a page is one ZRANGE BYLEX REV
//                           from the cursor's member prefix (exclusive), and the set is trimmed to
//                           the retention with ZREMRANGEBYLEX in each batch's MULTI
//   usage:log:ids:<day>     hash request id → member prefix of its newest record that day
//                           (GET /admin/requests/{id}): one key a day, not one a request
//   usage:content:<request> hash {ts, body}: the captured content, expiring with the retention
// The records go into the set in the same MULTI as the ledger's own writes (group commit): a record
// that is in the ledger is in the log.
import { randomBytes } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { dayOf, type UsageRecord } from './usage-record.ts';
import {
  matches,
  maxScanned,
  scanStep,
  type LoggedRecord,
  type LogPage,
  type RequestContent,
  type RequestLogStore,
  type RequestQuery,
  type StoredContent,
} from './request-log.ts';

const dayMs = 86_400_000;
const pad = (ts: number): string => String(Math.max(0, Math.floor(ts))).padStart(15, '0');
/** "<ts>:<8 hex>", 24 characters. */
const prefixLength = 24;

type Entry = { prefix: string; record: UsageRecord };

function entryOf(member: string): Entry | undefined {
  try {
    return { prefix: member.slice(0, prefixLength), record: JSON.parse(member.slice(prefixLength + 1)) as UsageRecord };
  } catch {
    return undefined;
  }
}

export class RedisRequestLog implements RequestLogStore {
  readonly #r: Redis;
  readonly #p: string;
  readonly #retentionMs: number;

  /** `prefix`: the ledger's (`polygate:usage:`); `retentionMs`: how long a record is kept. */
  constructor(client: Redis, prefix: string, retentionMs: number) {
    this.#r = client;
    this.#p = prefix;
    this.#retentionMs = retentionMs;
  }

  /** Adds the batch's records to the log in the ledger's MULTI, and trims what the retention dropped. */
  append(m: ChainableCommander, records: readonly UsageRecord[], now: number): void {
    if (records.length === 0) return;
    const log = `${this.#p}log`;
    const args: string[] = [];
    const days = new Set<string>();
    for (const r of records) {
      const prefix = `${pad(r.ts)}:${randomBytes(4).toString('hex')}`;
      args.push('0', `${prefix}:${JSON.stringify(r)}`);
      const ids = `${this.#p}log:ids:${r.day}`;
      m.hset(ids, r.request_id, prefix);
      days.add(ids);
    }
    for (const ids of days) m.pexpire(ids, this.#retentionMs);
    m.zadd(log, ...args);
    m.zremrangebylex(log, '-', `(${pad(now - this.#retentionMs)}`);
    m.pexpire(log, this.#retentionMs);
  }

  async list(q: RequestQuery): Promise<LogPage> {
    const log = `${this.#p}log`;
    let start = q.until === undefined ? '+' : `(${pad(q.until)}`;
    const after = q.after === undefined ? undefined : String(q.after.tie);
    if (after !== undefined && (start === '+' || after < start.slice(1))) start = `(${after}`;
    const stop = q.since === undefined ? '-' : `[${pad(q.since)}`;
    const found: Entry[] = [];
    let scanned = 0;
    let last: string | undefined;
    let more = true;
    while (found.length <= q.limit && scanned < maxScanned && more) {
      const members = await this.#r.zrange(log, start, stop, 'BYLEX', 'REV', 'LIMIT', 0, scanStep);
      more = members.length === scanStep;
      for (const m of members) {
        scanned++;
        const e = entryOf(m);
        last = m.slice(0, prefixLength);
        if (e && matches(e.record, q)) found.push(e);
        if (found.length > q.limit) break;
      }
      if (last !== undefined) start = `(${last}`;
    }
    const page = found.slice(0, q.limit);
    let next: string | undefined;
    // A full page with one more after it, or a scan that stopped at its bound before the set's end:
    // the next page starts after the last record read (returned or not), so none is skipped or repeated.
    if (found.length > q.limit) next = page.at(-1)!.prefix;
    else if (more && last !== undefined) next = last;
    return {
      records: await this.#withContent(page.map((e) => e.record)),
      next: next === undefined ? undefined : { ts: Number(next.slice(0, 15)), tie: next },
    };
  }

  async #withContent(records: UsageRecord[]): Promise<LoggedRecord[]> {
    if (records.length === 0) return [];
    const p = this.#r.pipeline();
    for (const r of records) p.hget(`${this.#p}content:${r.request_id}`, 'ts');
    const results = (await p.exec()) ?? [];
    return records.map((record, i) => ({ record, hasContent: results[i]?.[1] === String(record.ts) }));
  }

  /** The newest record with this id: the days' id hashes read from today back, in one pipeline. */
  async get(requestId: string): Promise<LoggedRecord | undefined> {
    const p = this.#r.pipeline();
    const now = Date.now();
    for (let t = now + dayMs; t >= now - this.#retentionMs; t -= dayMs)
      p.hget(`${this.#p}log:ids:${dayOf(t)}`, requestId);
    const prefix = ((await p.exec()) ?? []).map(([, v]) => v).find((v) => typeof v === 'string') as string | undefined;
    if (prefix === undefined || prefix.length !== prefixLength) return undefined;
    const [member] = await this.#r.zrange(`${this.#p}log`, `[${prefix}:`, `[${prefix};`, 'BYLEX', 'LIMIT', 0, 1);
    const e = member === undefined ? undefined : entryOf(member);
    return e && (await this.#withContent([e.record]))[0];
  }

  async putContent(c: StoredContent): Promise<void> {
    const k = `${this.#p}content:${c.request_id}`;
    await this.#r.multi().hset(k, 'ts', String(c.ts), 'body', JSON.stringify(c)).pexpire(k, this.#retentionMs).exec();
  }

  async content(requestId: string, ts: number): Promise<RequestContent | undefined> {
    const [t, body] = await this.#r.hmget(`${this.#p}content:${requestId}`, 'ts', 'body');
    return t === String(ts) && body !== null ? (JSON.parse(body) as RequestContent) : undefined;
  }

  async deleteContent(requestId: string): Promise<void> {
    await this.#r.del(`${this.#p}content:${requestId}`);
  }
}
