import type { Redis } from 'ioredis';
import { budgetPeriods, type BudgetPeriod } from '../../infra/config/budget-spec.ts';
import type { Windows } from './budget-periods.ts';
import type { LedgerStore, PeriodTotal, Reservation, RowFilter, ScopeLimits, Spent } from './ledger-store.ts';
import { batchTotals, reservationTtlMs, toMs, zeroSpent, zeroTotals } from './ledger-store.ts';
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
//   usage:rec:<day>               list of the day's records as JSON
//   usage:agg:<day>               hash "<key>\n<model>\n<provider>\n<measure>" → sum (audio in ms)
//   usage:total:<scope>:<bucket>  hash {cost_nano, tokens}: a scope's window (a key id, or
//                                 @workspace:<id>, @provider:<id>; buckets h:, d:, w:, t:, m:, budget-periods.ts)
//   usage:resv:<scope>            sorted set of a scope's live budget reservations, member
//                                 "<id>:<cost_nano>:<tokens>", score = when it expires
//   usage:flag:<flag>             the soft-limit webhook's once-per-period flags
// One MULTI per batch: the records, their totals and the end of the reservations they settle
// change together. Counters are integers (HINCRBY), so totals from any number of instances add
// up exactly.

/**
 * Scopes' spend with every live reservation and, when ARGV[2] = '1' and no scope has reached a
 * limit, a new reservation in every scope, in one step: two instances cannot both admit on the
 * same room. KEYS per scope: its reservations, then its total of each period (hour, day, week,
 * 30d, month). ARGV: now, reserve?, member, expiresAt, ttl, number of scopes, then per scope: this
 * instance's unwritten records (cost, tokens) per period, the number of its limits, and per limit
 * the period's index (1-5), the cost limit and the token limit (0 = none). Answers {admitted,
 * then per scope and period: cost, tokens}.
 */
const admitScript = `
local n = tonumber(ARGV[6])
local a = 7
local out = {0}
local ok = true
for i = 0, n - 1 do
  local resv = KEYS[i * 6 + 1]
  redis.call('ZREMRANGEBYSCORE', resv, '-inf', ARGV[1])
  local rc, rt = 0, 0
  for _, m in ipairs(redis.call('ZRANGE', resv, 0, -1)) do
    local c, t = string.match(m, ':(%d+):(%d+)$')
    if c then rc = rc + tonumber(c); rt = rt + tonumber(t) end
  end
  local u = {}
  for p = 1, 5 do
    local v = redis.call('HMGET', KEYS[i * 6 + 1 + p], 'cost_nano', 'tokens')
    local c = tonumber(v[1] or 0) + rc + tonumber(ARGV[a])
    local t = tonumber(v[2] or 0) + rt + tonumber(ARGV[a + 1])
    a = a + 2
    u[p] = {c, t}
    out[#out + 1] = c
    out[#out + 1] = t
  end
  local nl = tonumber(ARGV[a])
  a = a + 1
  for l = 1, nl do
    local p, cl, tl = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    a = a + 3
    if (cl > 0 and u[p][1] >= cl) or (tl > 0 and u[p][2] >= tl) then ok = false end
  end
end
if ARGV[2] == '1' and ok then
  for i = 0, n - 1 do
    redis.call('ZADD', KEYS[i * 6 + 1], ARGV[4], ARGV[3])
    redis.call('PEXPIRE', KEYS[i * 6 + 1], ARGV[5])
  end
  out[1] = 1
end
return out
`;

type AdmitCommand = (...args: (string | number)[]) => Promise<number[]>;

const memberOf = (r: Reservation): string => `${r.id}:${r.costNano}:${r.tokens}`;

const dayMs = 86_400_000;

/** How long a window's total is kept past its start: its length and a day. */
const totalTtl: Record<string, number> = {
  'h:': 2 * 3_600_000,
  'd:': 2 * dayMs,
  'w:': 8 * dayMs,
  't:': 31 * dayMs,
  'm:': 32 * dayMs,
};

const periodIndex = (p: BudgetPeriod): number => budgetPeriods.indexOf(p) + 1;

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
    if (!('pgBudgetAdmitScopes' in client)) client.defineCommand('pgBudgetAdmitScopes', { lua: admitScript });
  }

  async admit(
    scopes: readonly ScopeLimits[],
    r: Reservation | undefined,
    windows: Windows,
    pending: readonly Readonly<Spent>[],
    now: number,
  ): Promise<{ admitted: boolean; spent: Spent[] }> {
    const admit = (this.#r as unknown as { pgBudgetAdmitScopes: AdmitCommand }).pgBudgetAdmitScopes.bind(this.#r);
    const keys: string[] = [];
    const argv: (string | number)[] = [
      now,
      r !== undefined ? '1' : '0',
      r === undefined ? '' : memberOf(r),
      now + reservationTtlMs,
      2 * reservationTtlMs,
      scopes.length,
    ];
    scopes.forEach((s, i) => {
      keys.push(`${this.#p}resv:${s.scope}`);
      for (const p of budgetPeriods) {
        keys.push(`${this.#p}total:${s.scope}:${windows[p].bucket}`);
        argv.push(pending[i][p].costNano, pending[i][p].tokens);
      }
      argv.push(s.limits.length);
      for (const l of s.limits) argv.push(periodIndex(l.period), l.costNano, l.tokens);
    });
    const out = await admit(keys.length, ...keys, ...argv);
    const spent = scopes.map((_, i) => {
      const one = zeroSpent();
      budgetPeriods.forEach((p, j) => {
        one[p] = { costNano: Number(out[1 + i * 10 + j * 2]), tokens: Number(out[2 + i * 10 + j * 2]) };
      });
      return one;
    });
    return { admitted: out[0] === 1, spent };
  }

  async release(rs: readonly Reservation[]): Promise<void> {
    const m = this.#r.pipeline();
    for (const r of rs) for (const s of r.scopes) m.zrem(`${this.#p}resv:${s}`, memberOf(r));
    await m.exec();
  }

  async renew(rs: readonly Reservation[], now: number): Promise<void> {
    const m = this.#r.pipeline();
    for (const r of rs)
      for (const s of r.scopes) m.zadd(`${this.#p}resv:${s}`, 'XX', now + reservationTtlMs, memberOf(r));
    await m.exec();
  }

  async claimOnce(flag: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, expiresAt - Date.now());
    return (await this.#r.set(`${this.#p}flag:${flag}`, '1', 'PX', ttl, 'NX')) === 'OK';
  }

  async append(
    records: UsageRecord[],
    settled: readonly Reservation[] = [],
    totals: readonly PeriodTotal[] = batchTotals(records),
  ): Promise<void> {
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
    for (const t of totals) {
      const total = `${this.#p}total:${t.scope}:${t.period}`;
      m.hincrby(total, 'cost_nano', t.costNano);
      m.hincrby(total, 'tokens', t.tokens);
      touched.set(total, totalTtl[t.period.slice(0, 2)] ?? 32 * dayMs);
    }
    for (const [k, ttl] of touched) m.pexpire(k, ttl);
    this.requestLog.append(m, records, Date.now());
    for (const r of settled) for (const s of r.scopes) m.zrem(`${this.#p}resv:${s}`, memberOf(r));
    const results = await m.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async totals(scope: string, windows: Windows): Promise<Spent> {
    const m = this.#r.pipeline();
    for (const p of budgetPeriods) m.hmget(`${this.#p}total:${scope}:${windows[p].bucket}`, 'cost_nano', 'tokens');
    const results = (await m.exec()) ?? [];
    const out = zeroSpent();
    budgetPeriods.forEach((p, i) => {
      const [err, v] = results[i] ?? [null, [null, null]];
      if (err) throw err;
      const [c, t] = v as (string | null)[];
      out[p] = c === null && t === null ? zeroTotals() : { costNano: Number(c ?? 0), tokens: Number(t ?? 0) };
    });
    return out;
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
