// The sqlite ledger's journal when the disk under it fails (src/services/usage/ledger.ts, ledger-journal.ts):
// billing must go on through the database, and a crash after it must neither lose nor double a
// record. Before, a journal that kept failing held every record out of the database (a record
// reached it only after its journal line), and a journal generation that could not be opened made
// the ledger's flush reject, unhandled, from its timer.
import { appendFileSync, mkdirSync, mkdtempSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { LedgerJournal, type WriteFile } from '../../src/services/usage/ledger-journal.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import { idsIn, sampleRecord } from './sample-record.ts';

const ids = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `req-${from + i}`);
const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'ledger-journal-broken-')), 'ledger.db');
// No flush by the timer during a test: only the ones it asks for. A short bounded wait for commits.
const opts = { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90, storeWaitMs: 20 };
const eio = (): never => {
  throw Object.assign(new Error('i/o error'), { code: 'EIO' });
};

t.test('a journal that keeps failing does not stop billing, and a crash after it doubles nothing', async (t) => {
  const path = dbPath();
  let broken = true;
  const disk: WriteFile = (fd, b, off, len) => (broken ? eio() : writeSync(fd, b, off, len));
  const ledger = new Ledger(new SqliteLedgerStore(path, { journalWrite: disk }), opts, () => undefined);
  await Promise.all([1, 2, 3].map((i) => ledger.commit(sampleRecord(i))));
  t.same(idsIn(path), ids(1, 3), 'the records are in the database by the time their commits resolve');
  t.ok(await ledger.flush(), 'a flush succeeds');
  // The disk works again: the next records are journaled (no batch written), in a generation of their own.
  broken = false;
  await Promise.all([4, 5].map((i) => ledger.commit(sampleRecord(i))));
  t.same(idsIn(path), ids(1, 3), 'journaled, not yet in the database');
  // The process dies here; the next start writes the journal's tail in.
  const reopened = new SqliteLedgerStore(path);
  t.teardown(() => reopened.close());
  t.same(idsIn(path), ids(1, 5), 'every record once, in order');
});

t.test('records the journal failed to hold are never written in twice from lines its file kept', async (t) => {
  const path = dbPath();
  // The third write stops 10 bytes short of its end (whole lines of records 3 and 4), then the disk fails.
  let writes = 0;
  const disk: WriteFile = (fd, b, off, len) => {
    writes++;
    if (writes === 3) return writeSync(fd, b, off, len - 10);
    return writes > 3 ? eio() : writeSync(fd, b, off, len);
  };
  const ledger = new Ledger(new SqliteLedgerStore(path, { journalWrite: disk }), opts, () => undefined);
  await ledger.commit(sampleRecord(1));
  await ledger.commit(sampleRecord(2));
  t.ok(await ledger.flush(), 'the first two in the database');
  await Promise.all([3, 4, 5].map((i) => ledger.commit(sampleRecord(i))));
  t.same(idsIn(path), ids(1, 5), 'the database took the records the journal could not hold');
  // What a cut-back that failed too would leave in generation 1's file: whole lines of records 3 and 4.
  appendFileSync(LedgerJournal.fileOf(path, 1), [3, 4].map((i) => `${JSON.stringify(sampleRecord(i))}\n`).join(''));
  const reopened = new SqliteLedgerStore(path);
  t.teardown(() => reopened.close());
  t.same(idsIn(path), ids(1, 5), 'a start after a crash writes none of them again');
});

t.test('a journal generation that cannot be opened: no rejected flush, no record lost', async (t) => {
  const path = dbPath();
  // Generation 2 cannot be opened (a directory where its file goes): the rotation after the first batch fails.
  mkdirSync(LedgerJournal.fileOf(path, 2));
  const ledger = new Ledger(new SqliteLedgerStore(path, { journalLines: 1 }), opts, () => undefined);
  await ledger.commit(sampleRecord(1));
  t.ok(await ledger.flush(), 'the flush that rotates resolves');
  await Promise.all([2, 3].map((i) => ledger.commit(sampleRecord(i))));
  t.same(
    idsIn(path),
    ids(1, 3),
    'with no journal to write, the records go to the database before their commits resolve',
  );
  // A later generation opens: the journal is back.
  await ledger.commit(sampleRecord(4));
  const reopened = new SqliteLedgerStore(path);
  t.teardown(() => reopened.close());
  t.same(idsIn(path), ids(1, 4), 'journaled again, recovered once after a crash');
});
