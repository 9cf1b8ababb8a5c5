// Issue #25, item 2, in the ledger itself (src/services/usage/ledger.ts) with the clock given: a
// record counts in its key's, workspace's and provider's totals of every period's window, and not
// in the next window; a reservation holds in every scope it names (a provider's added as its route
// is tried) until its record replaces it; the soft-limit flag is set once per window across two
// stores on one sqlite file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { MemoryLedgerStore } from '../../src/services/usage/memory-ledger-store.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import { scopeId } from '../../src/services/usage/ledger-store.ts';
import { sampleRecord } from './sample-record.ts';

const opts = { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90 };
const ws = scopeId('workspace', 'default');
const prov = scopeId('provider', 'openai');
// Sunday 2026-05-31 23:30 UTC: the last half hour of a day, an ISO week and a month.
const now = Date.parse('2026-05-31T23:30:00Z');
const nextHour = Date.parse('2026-06-01T00:10:00Z');

for (const [name, open] of [
  ['memory', () => new MemoryLedgerStore()],
  ['sqlite', () => new SqliteLedgerStore(join(mkdtempSync(join(tmpdir(), 'polygate-scopes-')), 'l.db'))],
] as const)
  t.test(`${name}: a record counts in its three scopes, each period's window, until the window ends`, async (t) => {
    const ledger = new Ledger(open(), opts, () => undefined);
    t.teardown(() => ledger.close());
    ledger.add(sampleRecord(1, { ts: now, cost_nano: 500 }));
    await ledger.flush();
    for (const scope of ['k', ws, prov]) {
      const s = await ledger.spent(scope, now);
      for (const p of ['hour', 'day', 'week', '30d', 'month'] as const)
        t.same(s[p], { costNano: 500, tokens: 30 }, `${scope} ${p}`);
    }
    t.same((await ledger.spent(scopeId('workspace', 'elsewhere'), now)).day, { costNano: 0, tokens: 0 });
    // 40 minutes on: a new hour, day, week and month; the 30-day window goes on.
    const later = await ledger.spent(ws, nextHour);
    t.same(
      [later.hour, later.day, later.week, later.month].map((x) => x.costNano),
      [0, 0, 0, 0],
      'the new windows start at zero',
    );
    const thirty = Math.floor(now / (30 * 86_400_000)) === Math.floor(nextHour / (30 * 86_400_000));
    t.equal(later['30d'].costNano, thirty ? 500 : 0, '30d follows its own windows');
  });

t.test(
  'a reservation holds in every scope it names, a provider added later, until its record replaces it',
  async (t) => {
    const ledger = new Ledger(new MemoryLedgerStore(), opts, () => undefined);
    t.teardown(() => ledger.close());
    const limits = (scope: string, costNano: number) => ({
      scope,
      limits: [{ period: 'week' as const, costNano, tokens: 0 }],
    });
    const a = await ledger.reserve([limits('k', 1000), limits(ws, 1000)], { costNano: 600, tokens: 10 }, now);
    t.ok(a.admitted);
    if (!a.admitted) return;
    t.same(a.reservation.scopes, ['k', ws]);
    const p = await ledger.reserve([limits(prov, 700)], { costNano: 600, tokens: 10 }, now, a.reservation);
    t.ok(p.admitted, 'the provider admits it: its reservation is extended');
    t.same(a.reservation.scopes, ['k', ws, prov]);
    t.equal((await ledger.spent(prov, now)).week.costNano, 600, 'held in the provider');
    // Another request of another key in the same workspace: the workspace's room is what is left.
    const b = await ledger.reserve([limits('k2', 0), limits(ws, 1000)], { costNano: 600, tokens: 10 }, now);
    t.ok(b.admitted, 'used 600 < 1,000');
    const c = await ledger.reserve([limits('k3', 0), limits(ws, 1000)], { costNano: 1, tokens: 0 }, now);
    t.notOk(c.admitted, 'used 1,200: the workspace refuses');
    t.equal(c.spent[1].week.costNano, 1200);
    const onProvider = await ledger.reserve([limits(prov, 600)], { costNano: 1, tokens: 0 }, now);
    t.notOk(onProvider.admitted, 'a provider limit of 600 with 600 reserved refuses');
    // The record replaces the first reservation in all three scopes.
    ledger.add(sampleRecord(1, { ts: now, cost_nano: 250 }), a.reservation);
    t.equal((await ledger.spent('k', now)).week.costNano, 250);
    t.equal((await ledger.spent(ws, now)).week.costNano, 250 + 600, "the record and the other request's reservation");
    t.equal((await ledger.spent(prov, now)).week.costNano, 250);
    if (b.admitted) ledger.release(b.reservation);
    t.equal((await ledger.spent(ws, now)).week.costNano, 250, 'a released reservation frees its room');
  },
);

t.test('the soft-limit flag: set once across two stores on one sqlite file, again once it expires', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'polygate-flags-')), 'l.db');
  const a = new SqliteLedgerStore(path);
  const b = new SqliteLedgerStore(path);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const until = Date.now() + 60_000;
  const got = [await a.claimOnce('soft:x:week:1', until), await b.claimOnce('soft:x:week:1', until)];
  t.same(got, [true, false], 'the first sets it');
  t.equal(await b.claimOnce('soft:x:week:2', until), true, 'another window is another flag');
  t.equal(await a.claimOnce('soft:y:day:1', Date.now() - 1), true);
  t.equal(await b.claimOnce('soft:y:day:1', until), true, 'an expired flag can be set again');
  const m = new MemoryLedgerStore();
  t.same([await m.claimOnce('f', until), await m.claimOnce('f', until)], [true, false], 'memory: the same');
});
