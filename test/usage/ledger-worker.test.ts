// The sqlite ledger written by a thread of its own (src/services/usage/sqlite-worker-ledger-store.ts):
// the same file as the in-thread store, no insert on the thread that serves requests, and a thread
// that dies is replaced without losing what was queued. Nothing here is timed: the tests count the
// event loop's turns and compare what is in the file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import { SqliteWorkerLedgerStore } from '../../src/services/usage/sqlite-worker-ledger-store.ts';
import { dayOf, type UsageRecord } from '../../src/services/usage/usage-record.ts';

const opts = { flushIntervalMs: 3_600_000, batchSize: 100_000, retentionDays: 90 };
const day = dayOf(Date.now());
const month = day.slice(0, 7);

const record = (i: number, key = 'k'): UsageRecord => {
  const ts = Date.now();
  return {
    ts, day: dayOf(ts), request_id: `req-${i}`, key, workspace: 'default', family: 'messages', model: i % 2 ? 'sonnet' : 'haiku', provider: 'openai',
    upstream_model: 'gpt-4.1', format_in: 'anthropic-messages', format_out: 'openai-chat', mode: 'translate', input_tokens: 10, output_tokens: 20,
    reasoning_tokens: 1, cache_read_tokens: 2, cache_write_tokens: 3, characters: 4, audio_seconds: 1.25, tasks: 0, cost_nano: 330, priced: i % 3 !== 0, outcome: 'ok', status: 200,
  };
};

const tempDb = (t: { teardown(fn: () => void): void }): string => {
  const dir = mkdtempSync(join(tmpdir(), 'polygate-ledger-worker-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'ledger.db');
};

/** Turns of the event loop while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  done = true;
  return turns;
}

t.test('one append of 5,000 records is written while the event loop keeps turning (the in-thread store holds it)', async (t) => {
  const records = Array.from({ length: 5_000 }, (_, i) => record(i));
  const inThread = new SqliteLedgerStore(tempDb(t));
  t.equal(await turnsDuring(() => inThread.append(records)), 0, 'in thread: no turn until the transaction ends');
  await inThread.close();
  const store = new SqliteWorkerLedgerStore(tempDb(t));
  await store.totals('k', day, month); // the thread is up
  const turns = await turnsDuring(() => store.append(records));
  t.ok(turns >= 1, `the event loop turned ${turns} times during the append`);
  const all = { costNano: 5_000 * 330, tokens: 5_000 * 30 };
  t.same(await store.totals('k', day, month), { day: all, month: all });
  await store.close();
});

t.test('the same rows and totals as the in-thread store, through the ledger', async (t) => {
  const results = [];
  for (const store of [new SqliteLedgerStore(tempDb(t)), new SqliteWorkerLedgerStore(tempDb(t))]) {
    const ledger = new Ledger(store, opts, () => undefined);
    for (let i = 0; i < 2_500; i++) ledger.add(record(i, i % 4 === 0 ? 'other' : 'k'));
    t.equal(await ledger.flush(), true);
    const rows = await store.rows({ since: day, until: day });
    const ofKey = await store.rows({ since: day, until: day, key: 'other' });
    results.push({ rows, ofKey, k: await ledger.spent('k'), other: await store.totals('other', day, month) });
    await ledger.close();
  }
  t.same(results[1], results[0]);
  t.equal(results[1].rows.length, 3, 'one row per key and model (other: haiku only)');
  t.equal(results[1].rows.reduce((n, r) => n + r.requests, 0), 2_500);
  t.same(results[1].other, { day: { costNano: 625 * 330, tokens: 625 * 30 }, month: { costNano: 625 * 330, tokens: 625 * 30 } });
});

t.test('a thread that dies is replaced: nothing queued is lost, nothing is written twice', async (t) => {
  const store = new SqliteWorkerLedgerStore(tempDb(t));
  const ledger = new Ledger(store, opts, () => undefined);
  for (let i = 0; i < 300; i++) ledger.add(record(i));
  t.equal(await ledger.flush(), true);
  const first = store.thread;
  t.ok(first, 'a thread is running');
  await first!.terminate(); // as a crash would
  for (let i = 300; i < 700; i++) ledger.add(record(i));
  t.equal(await ledger.flush(), true, 'the next flush goes to a new thread');
  t.not(store.thread, first);
  const all = { costNano: 700 * 330, tokens: 700 * 30 };
  t.same(await store.totals('k', day, month), { day: all, month: all });
  t.same(await ledger.spent('k'), { day: all, month: all });
  t.equal((await store.rows({ since: day, until: day })).reduce((n, r) => n + r.requests, 0), 700);
  await ledger.close();
});

t.test('after close, calls fail instead of starting a thread', async (t) => {
  const store = new SqliteWorkerLedgerStore(tempDb(t));
  await store.append([record(1)]);
  await store.close();
  t.equal(store.thread?.threadId ?? -1, -1, 'no thread');
  await t.rejects(store.append([record(2)]), /closed/);
});
