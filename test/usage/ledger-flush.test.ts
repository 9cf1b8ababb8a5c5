// The ledger's flush in small appends (src/services/usage/ledger.ts): node:sqlite is synchronous, so
// one transaction of a whole batch held every request of the process for milliseconds. Nothing here
// is timed: the tests count the event loop's turns during a flush and check the totals at each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { MemoryLedgerStore } from '../../src/services/usage/memory-ledger-store.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import type { UsageRecord } from '../../src/services/usage/usage-record.ts';
import { windowsOf } from '../../src/services/usage/budget-periods.ts';
import { zeroSpent } from '../../src/services/usage/ledger-store.ts';
import { sampleRecord } from './sample-record.ts';
import { onEveryLoopTurn } from '../helpers/loop-turns.ts';

const records = 2_000;
const opts = { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90 };

const record = (i: number, ts = Date.now()): UsageRecord => sampleRecord(i, { ts });

/** The same totals in every period's window (records of this hour). */
const every = (t: { costNano: number; tokens: number }) => ({ hour: t, day: t, week: t, '30d': t, month: t });

t.test(
  'a sqlite flush of 2,000 records lets other callbacks run between its transactions, and the totals stay exact throughout',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'polygate-ledger-flush-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const store = new SqliteLedgerStore(join(dir, 'ledger.db'));
    const ledger = new Ledger(store, opts, () => undefined);
    // Read once before: the cached store totals must then follow each append, not lag or double it.
    t.same(await ledger.spent('k'), zeroSpent());
    for (let i = 0; i < records; i++) ledger.add(record(i));
    const all = { costNano: records * 330, tokens: records * 30 };
    let turns = 0;
    const seen: unknown[] = [];
    const stop = onEveryLoopTurn(() => {
      turns++;
      seen.push(structuredClone(ledger.spentNow('k')));
    });
    t.equal(await ledger.flush(), true);
    stop();
    t.ok(turns >= 2, `other callbacks ran during the flush (${turns} turns of the event loop)`);
    t.ok(
      seen.every((s) => JSON.stringify(s) === JSON.stringify(every(all))),
      'every turn saw the whole spend, whichever part of it was written yet',
    );
    t.same(await store.totals('k', windowsOf(Date.now())), every(all), 'the store has every record once');
    t.same(await ledger.spent('k'), every(all));
    await ledger.close();
  },
);

t.test('an append that fails leaves its records and the ones after it queued, none written twice', async (t) => {
  class FlakyStore extends MemoryLedgerStore {
    override readonly maxAppend = 100;
    calls = 0;
    override async append(rs: UsageRecord[]): Promise<void> {
      if (++this.calls === 3) throw new Error('disk full');
      await super.append(rs);
    }
  }
  const store = new FlakyStore();
  const ledger = new Ledger(store, opts, () => undefined);
  for (let i = 0; i < 450; i++) ledger.add(record(i));
  t.equal(await ledger.flush(), false, 'the failed append is reported');
  t.equal(store.records.length, 200, 'the two appends before it are written');
  t.equal(await ledger.flush(), true);
  t.same(
    store.records.map((r) => r.request_id),
    Array.from({ length: 450 }, (_, i) => `req-${i}`),
    'every record once, in order',
  );
  t.same((await ledger.spent('k')).day, { costNano: 450 * 330, tokens: 450 * 30 });
  await ledger.close();
});

t.test('past the queue cap the oldest tenth is dropped at once, and the pending totals follow', async (t) => {
  const { ledgerRecordsTotal } = await import('../../src/infra/metrics/registry.ts');
  const dropped = async (): Promise<number> =>
    (await ledgerRecordsTotal.get()).values.find((v) => v.labels.outcome === 'dropped')?.value ?? 0;
  // Nothing is written: no flush by size or timer, as when the store keeps failing.
  const ledger = new Ledger(new MemoryLedgerStore(), { ...opts, batchSize: Number.MAX_SAFE_INTEGER }, () => undefined);
  const before = await dropped();
  for (let i = 0; i < 100_000; i++) ledger.add(record(i));
  t.equal(await dropped(), before, 'up to the cap, nothing is dropped');
  ledger.add(record(100_000));
  t.equal(await dropped(), before + 10_001, 'one record past the cap drops the oldest tenth with it');
  // One splice per record past the cap moved the whole queue each time (a CPU sink under overload).
  for (let i = 1; i < 10_000; i++) ledger.add(record(100_000 + i));
  t.equal(await dropped(), before + 10_001, 'the next 9,999 drop nothing');
  t.same(
    (await ledger.spent('k')).day,
    { costNano: 99_999 * 330, tokens: 99_999 * 30 },
    'the pending totals count what is kept (90,000 + 9,999)',
  );
  await ledger.close(0);
});
