import type { Redis } from 'ioredis';
import type { LedgerStore, Limits, Reservation, RowFilter, Spent, SpendTotals } from './ledger-store.ts';
import { batchTotals, reservationTtlMs, toMs, zeroTotals } from './ledger-store.ts';
import {
  addTo,
  dayOf,
  emptyRow,
  measuresOf,
  measures,
  type Measure,
  type UsageRecord,
  type UsageRow,
} from './usage-record.ts';
import { RedisRequestLog } from './redis-request-log.ts';

// Layout (after the store's prefix, `polygate:`), every key expiring with the retention:
//   usage:rec:<day>            list of the day's records as JSON
//   usage:agg:<day>            hash "<key>\n<model>\n<provider>\n<measure>" → sum (audio in ms)
//   usage:total:<key>:d:<day>  hash {cost_nano, tokens}: a key's day, for budgets
//   usage:total:<key>:m:<mon>  the same for a calendar month
//   usage:resv:<key>           sorted set of a key's live budget reservations, member
//                              "<id>:<cost_nano>:<tokens>", score = when it expires
// One MULTI per batch: the records, their totals and the end of the reservations they settle
// change together. Counters are integers (HINCRBY), so totals from any number of instances add
// up exactly.

/**
 * A key's spend with every live reservation, and (ARGV[2] = '1') a new reservation when no limit
 * is reached, in one step: two instances cannot both admit on the same room. KEYS: resv, the
 * day's total, the month's total. ARGV: now, reserve?, member, expiresAt, ttl, four limits
 * (cost day, cost month, tokens day, tokens month; 0 = none), then this instance's unwritten
 * records (cost day, tokens day, cost month, tokens month). Answers {admitted, cost day, tokens
 * day, cost month, tokens month}.
 */
const admitScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local rc, rt = 0, 0
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local c, t = string.match(m, ':(%d+):(%d+)$')
  if c then rc = rc + tonumber(c); rt = rt + tonumber(t) end
end
local d = redis.call('HMGET', KEYS[2], 'cost_nano', 'tokens')
local mo = redis.call('HMGET', KEYS[3], 'cost_nano', 'tokens')
local dc = tonumber(d[1] or 0) + rc + tonumber(ARGV[10])
local dt = tonumber(d[2] or 0) + rt + tonumber(ARGV[11])
local mc = tonumber(mo[1] or 0) + rc + tonumber(ARGV[12])
local mt = tonumber(mo[2] or 0) + rt + tonumber(ARGV[13])
local admitted = 0
if ARGV[2] == '1' then
  local function reached(used, limit) limit = tonumber(limit); return limit > 0 and used >= limit end
  if not (reached(dc, ARGV[6]) or reached(mc, ARGV[7]) or reached(dt, ARGV[8]) or reached(mt, ARGV[9])) then
    redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
    redis.call('PEXPIRE', KEYS[1], ARGV[5])
    admitted = 1
  end
end
return {admitted, dc, dt, mc, mt}
`;

type AdmitCommand = (
  resv: string,
  day: string,
  month: string,
  ...argv: (string | number)[]
) => Promise<[number, number, number, number, number]>;

const memberOf = (r: Reservation): string => `${r.id}:${r.costNano}:${r.tokens}`;

const dayMs = 86_400_000;

/** The `redis` driver's ledger, on the store's connection: every instance sees one set of totals. */
export class RedisLedgerStore implements LedgerStore {
  readonly local = false;
  /** One pipeline per flush: the writes are asynchronous, nothing waits on them. */
  readonly maxAppend = Number.POSITIVE_INFINITY;
  readonly #r: Redis;
  readonly #p: string;
  readonly #retentionMs: number;
  /** GET /admin/requests (#25): a time-ordered set of the records, written in each batch's MULTI. */
  readonly requestLog: RedisRequestLog;

  constructor(client: Redis, prefix: string, retentionDays: number) {
    this.#r = client;
    this.#p = `${prefix}usage:`;
    this.#retentionMs = (retentionDays + 1) * dayMs;
    this.requestLog = new RedisRequestLog(client, this.#p, this.#retentionMs);
    if (!('pgBudgetAdmit' in client)) client.defineCommand('pgBudgetAdmit', { numberOfKeys: 3, lua: admitScript });
  }

  async admit(
    k: string,
    r: Reservation | undefined,
    day: string,
    month: string,
    limits: Limits | undefined,
    pending: Readonly<Spent>,
    now: number,
  ): Promise<{ admitted: boolean; spent: Spent }> {
    const admit = (this.#r as unknown as { pgBudgetAdmit: AdmitCommand }).pgBudgetAdmit.bind(this.#r);
    const l = limits ?? { costDay: 0, costMonth: 0, tokensDay: 0, tokensMonth: 0 };
    const [admitted, dc, dt, mc, mt] = await admit(
      `${this.#p}resv:${k}`,
      `${this.#p}total:${k}:d:${day}`,
      `${this.#p}total:${k}:m:${month}`,
      now,
      r !== undefined && limits !== undefined ? '1' : '0',
      r === undefined ? '' : memberOf(r),
      now + reservationTtlMs,
      2 * reservationTtlMs,
      l.costDay,
      l.costMonth,
      l.tokensDay,
      l.tokensMonth,
      pending.day.costNano,
      pending.day.tokens,
      pending.month.costNano,
      pending.month.tokens,
    );
    return {
      admitted: admitted === 1,
      spent: { day: { costNano: dc, tokens: dt }, month: { costNano: mc, tokens: mt } },
    };
  }

  async release(rs: readonly Reservation[]): Promise<void> {
    const m = this.#r.pipeline();
    for (const r of rs) m.zrem(`${this.#p}resv:${r.key}`, memberOf(r));
    await m.exec();
  }

  async renew(rs: readonly Reservation[], now: number): Promise<void> {
    const m = this.#r.pipeline();
    for (const r of rs) m.zadd(`${this.#p}resv:${r.key}`, 'XX', now + reservationTtlMs, memberOf(r));
    await m.exec();
  }

  async append(records: UsageRecord[], settled: readonly Reservation[] = []): Promise<void> {
    const m = this.#r.multi();
    const touched = new Map<string, number>();
    // One HINCRBY per measure of each day, key, model and provider in the batch, not per record.
    const rows = new Map<string, UsageRow>();
    for (const r of records) {
      const rec = `${this.#p}rec:${r.day}`;
      m.rpush(rec, JSON.stringify(r));
      touched.set(rec, this.#retentionMs);
      const id = `${r.day}\n${r.key}\n${r.model}\n${r.provider}`;
      let row = rows.get(id);
      if (!row) rows.set(id, (row = emptyRow(r.day, r.key, r.model, r.provider)));
      addTo(row, measuresOf(r));
    }
    for (const row of rows.values()) {
      const agg = `${this.#p}agg:${row.day}`;
      touched.set(agg, this.#retentionMs);
      for (const name of measures) {
        const v = name === 'audio_seconds' ? toMs(row[name]) : row[name];
        if (v !== 0) m.hincrby(agg, `${row.key}\n${row.model}\n${row.provider}\n${name}`, v);
      }
    }
    for (const t of batchTotals(records)) {
      const total = `${this.#p}total:${t.key}:${t.period}`;
      m.hincrby(total, 'cost_nano', t.costNano);
      m.hincrby(total, 'tokens', t.tokens);
      touched.set(total, t.period.startsWith('d:') ? 2 * dayMs : 32 * dayMs);
    }
    for (const [k, ttl] of touched) m.pexpire(k, ttl);
    this.requestLog.append(m, records, Date.now());
    for (const r of settled) m.zrem(`${this.#p}resv:${r.key}`, memberOf(r));
    const results = await m.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async totals(key: string, day: string, month: string): Promise<{ day: SpendTotals; month: SpendTotals }> {
    const [d, mo] = await Promise.all([
      this.#r.hmget(`${this.#p}total:${key}:d:${day}`, 'cost_nano', 'tokens'),
      this.#r.hmget(`${this.#p}total:${key}:m:${month}`, 'cost_nano', 'tokens'),
    ]);
    const parse = (v: (string | null)[]): SpendTotals =>
      v[0] === null && v[1] === null ? zeroTotals() : { costNano: Number(v[0] ?? 0), tokens: Number(v[1] ?? 0) };
    return { day: parse(d), month: parse(mo) };
  }

  async rows(f: RowFilter): Promise<UsageRow[]> {
    const days: string[] = [];
    for (let t = Date.parse(`${f.since}T00:00:00Z`); dayOf(t) <= f.until; t += dayMs) days.push(dayOf(t));
    const m = this.#r.pipeline();
    for (const d of days) m.hgetall(`${this.#p}agg:${d}`);
    const results = (await m.exec()) ?? [];
    const rows = new Map<string, UsageRow>();
    results.forEach(([err, hash], i) => {
      if (err) throw err;
      for (const [field, value] of Object.entries(hash as Record<string, string>)) {
        const [key, model, provider, measure] = field.split('\n');
        if (f.key !== undefined && key !== f.key) continue;
        const id = `${days[i]}\n${key}\n${model}\n${provider}`;
        let row = rows.get(id);
        if (!row) rows.set(id, (row = emptyRow(days[i], key, model, provider)));
        const one = Object.fromEntries(measures.map((x) => [x, 0])) as Record<Measure, number>;
        one[measure as Measure] = measure === 'audio_seconds' ? Number(value) / 1000 : Number(value);
        addTo(row, one);
      }
    });
    return [...rows.values()];
  }

  /** Keys expire by themselves with the retention. */
  async prune(): Promise<void> {}

  /** The connection belongs to the store, which closes it. */
  async close(): Promise<void> {}
}
