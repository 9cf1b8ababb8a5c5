// `Ledger.commit`'s bounded wait (usage.store_wait_ms, docs/usage-and-tracing.md): a request waits
// for the write that makes its record durable, but never longer than the wait when the store cannot
// take it; the record then stays queued and is written once the store is back. For a store with a
// journal (sqlite) the wait is armed only when the turn's journal write failed (session 10): these
// check that a failing journal, or a store without one that hangs, still releases the request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { MemoryLedgerStore } from '../../src/services/usage/memory-ledger-store.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import { sampleRecord } from './sample-record.ts';

const opts = { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90, storeWaitMs: 50 };

const count = (path: string): number => {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM usage_records').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

t.test(
  'sqlite: a journal and a database that cannot be written release the requests after the wait; the records stay queued',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-commit-wait-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'ledger.db');
    const store = new SqliteLedgerStore(path);
    const journal = store.journal.bind(store);
    let failing = true;
    store.journal = (records) => {
      if (failing) throw new Error('disk full');
      journal(records);
    };
    // A journal that fails alone sends the records to the database (ledger-journal-broken.test.ts): here both fail.
    const append = store.append.bind(store);
    store.append = (...args) => (failing ? Promise.reject(new Error('disk full')) : append(...args));
    const ledger = new Ledger(store, opts, () => undefined);
    // Two turns of commits: each turn's group must be released.
    const first = [ledger.commit(sampleRecord(1)), ledger.commit(sampleRecord(2))];
    await new Promise((r) => setImmediate(r));
    const second = ledger.commit(sampleRecord(3));
    await Promise.all([...first, second]);
    t.pass('every commit resolved although nothing was journaled or written');
    t.equal(count(path), 0, 'nothing in the database yet');
    failing = false;
    t.ok(await ledger.flush(), 'written once the journal takes them');
    t.equal(count(path), 3);
    await ledger.close();
  },
);

t.test('sqlite: a journaled turn releases its requests with no batch written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-commit-wait-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'ledger.db');
  // A wait far beyond the test's own timeout: only the journal can release these.
  const ledger = new Ledger(new SqliteLedgerStore(path), { ...opts, storeWaitMs: 3_600_000 }, () => undefined);
  await Promise.all([ledger.commit(sampleRecord(1)), ledger.commit(sampleRecord(2))]);
  t.equal(count(path), 0, 'released by the journal alone');
  await ledger.close();
  t.equal(count(path), 2);
});

t.test('a store without a journal that does not answer releases the requests after the wait', async (t) => {
  const store = new MemoryLedgerStore();
  let hang = true;
  const append = store.append.bind(store);
  store.append = (records) => (hang ? new Promise<void>(() => {}) : append(records));
  const ledger = new Ledger(store, opts, () => undefined);
  await Promise.all([ledger.commit(sampleRecord(1)), ledger.commit(sampleRecord(2))]);
  t.equal(store.records.length, 0, 'released by the wait');
  hang = false;
});
