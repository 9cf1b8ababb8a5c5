// The sqlite ledger's journal (src/services/usage/ledger-journal.ts): a committed record is in the
// journal at once, the database takes it with its batch, and a store opened after a crash writes
// exactly the journal lines the database lacks: none lost, none twice.
import { appendFileSync, existsSync, mkdtempSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Ledger } from '../../src/services/usage/ledger.ts';
import { LedgerJournal, type WriteFile } from '../../src/services/usage/ledger-journal.ts';
import { SqliteLedgerStore } from '../../src/services/usage/sqlite-ledger-store.ts';
import type { UsageRecord } from '../../src/services/usage/usage-record.ts';
import { windowsOf } from '../../src/services/usage/budget-periods.ts';
import { idsIn, sampleRecord } from './sample-record.ts';

const record = (i: number): UsageRecord => sampleRecord(i, { family: 'chat', format_in: 'openai-chat' });

// No flush by the timer during a test: only the ones it asks for.
const opts = { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90 };

t.test('committed records survive a crash before their batch, and a restart writes each once', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-journal-')), 'ledger.db');
  const crashed = new Ledger(new SqliteLedgerStore(path), opts, () => undefined);
  for (let i = 0; i < 4; i++) crashed.add(record(i));
  t.ok(await crashed.flush(), 'a first batch written');
  t.same(idsIn(path), ['req-0', 'req-1', 'req-2', 'req-3']);
  for (let i = 4; i < 6; i++) crashed.add(record(i));
  t.ok(await crashed.flush(), 'a second batch written');
  // Committed: resolved once journaled, with no batch written.
  await Promise.all([6, 7, 8].map((i) => crashed.commit(record(i))));
  t.same(idsIn(path).length, 6, 'the database has the batches only');
  // The process dies here: the ledger is never closed. A new store opens the same file.
  const reopened = new SqliteLedgerStore(path);
  t.same(
    idsIn(path),
    Array.from({ length: 9 }, (_, i) => `req-${i}`),
    'the journal tail is written in, in order, nothing twice',
  );
  await reopened.close();
  const again = new SqliteLedgerStore(path);
  t.equal(idsIn(path).length, 9, 'a second restart writes nothing more');
  t.same((await again.totals('k', windowsOf(record(0).ts))).day, {
    costNano: 9 * 330,
    tokens: 9 * 30,
  });
  await again.close();
});

t.test(
  'once every journaled record is in the database and a generation is full, the journal starts afresh',
  async (t) => {
    const path = join(mkdtempSync(join(tmpdir(), 'ledger-journal-')), 'ledger.db');
    const ledger = new Ledger(new SqliteLedgerStore(path, { journalLines: 3 }), opts, () => undefined);
    await ledger.commit(record(1));
    t.ok(existsSync(LedgerJournal.fileOf(path, 1)), 'generation 1 holds the record');
    await ledger.flush();
    t.ok(existsSync(LedgerJournal.fileOf(path, 1)), 'kept while it holds fewer lines than a generation');
    await Promise.all([ledger.commit(record(2)), ledger.commit(record(3))]);
    await ledger.flush();
    t.notOk(existsSync(LedgerJournal.fileOf(path, 1)), 'deleted once full and its records are in the database');
    t.ok(existsSync(LedgerJournal.fileOf(path, 2)), 'generation 2 takes the next ones');
    await ledger.commit(record(4));
    await ledger.flush();
    // The process dies with generation 2 holding a line the database has: the next start must not write it again.
    const reopened = new SqliteLedgerStore(path);
    t.same(idsIn(path), ['req-1', 'req-2', 'req-3', 'req-4'], 'nothing doubled at the next start');
    await reopened.close();
    await ledger.close();
  },
);

t.test('a crash with a partly written generation: the next start writes only what the database lacks', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-journal-')), 'ledger.db');
  const crashed = new Ledger(new SqliteLedgerStore(path), opts, () => undefined);
  await Promise.all([1, 2, 3].map((i) => crashed.commit(record(i))));
  await crashed.flush();
  await Promise.all([4, 5].map((i) => crashed.commit(record(i))));
  t.equal(LedgerJournal.read(path, 1).length, 5, 'one generation holds the written records and the committed ones');
  const reopened = new SqliteLedgerStore(path);
  t.same(
    idsIn(path),
    [1, 2, 3, 4, 5].map((i) => `req-${i}`),
  );
  await reopened.close();
});

t.test('a record crosses the journal whole, and an older version’s object lines are still recovered', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-journal-')), 'ledger.db');
  const full = sampleRecord(1, {
    reasoning_tokens: 3,
    cache_read_tokens: 4,
    cache_write_tokens: 5,
    usage_source: 'partial',
    characters: 6,
    audio_seconds: 1.25,
    tasks: 7,
    web_search_requests: 8,
    web_fetch_requests: 9,
    priced: false,
    outcome: 'client_abort',
    status: 499,
    route: '/v1/messages',
    latency_ms: 12.5,
    warnings: ['top_k: x', 'a "quoted"\nline'],
  });
  const crashed = new Ledger(new SqliteLedgerStore(path), opts, () => undefined);
  await crashed.commit(full);
  // A line as polygate wrote it before session 10 (the record object), left by a crash at upgrade:
  // appended to the current generation, the database holding none of its lines.
  const old = sampleRecord(2, { content_captured: true, ttfb_ms: 3.5 });
  appendFileSync(LedgerJournal.fileOf(path, 1), `${JSON.stringify(old)}\n`);
  const reopened = new SqliteLedgerStore(path);
  t.teardown(() => reopened.close());
  t.same(idsIn(path), ['req-1', 'req-2']);
  t.same((await reopened.requestLog.get('req-1'))?.record, full, 'every field of the array line');
  t.same((await reopened.requestLog.get('req-2'))?.record, old, 'every field of the object line');
});

t.test('a turn of many records, past the journal buffer, with text beyond ASCII, is recovered whole', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-journal-')), 'ledger.db');
  const crashed = new Ledger(new SqliteLedgerStore(path), opts, () => undefined);
  // ~5,000 records of ~600 bytes in one turn: the 16 KB buffer grows past the 1 MB it keeps.
  const many = Array.from({ length: 5_000 }, (_, i) =>
    sampleRecord(i, { warnings: [`é ${'😀'.repeat(40)} ${i}`, 'x'.repeat(200)], route: '/v1/messages' }),
  );
  await Promise.all(many.map((r) => crashed.commit(r)));
  // And a small turn after it, on the buffer it starts again with.
  await crashed.commit(sampleRecord(5_000));
  const reopened = new SqliteLedgerStore(path);
  t.teardown(() => reopened.close());
  const ids = idsIn(path);
  t.equal(ids.length, 5_001);
  t.equal(ids.at(-1), 'req-5000');
  t.same((await reopened.requestLog.get('req-4321'))?.record, many[4321]);
});

t.test('a journal write that fails part way leaves no cut line before the lines written after it', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-journal-')), 'ledger.db');
  // The disk takes the first 40 bytes of the second write, then is full (ENOSPC), then has room again.
  let writes = 0;
  let full = false;
  const disk: WriteFile = (fd, b, off, len) => {
    if (full) {
      full = false;
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }
    if (++writes === 2) {
      full = true;
      return writeSync(fd, b, off, Math.min(len, 40));
    }
    return writeSync(fd, b, off, len);
  };
  const journal = new LedgerJournal(path, 1, disk);
  t.teardown(() => journal.close());
  const line = (id: string): void => journal.line(JSON.stringify([id, 'x'.repeat(60)]));
  line('a');
  journal.write();
  line('b');
  line('c');
  t.throws(() => journal.write(), /no space/, 'the failed write throws: b and c are not journaled');
  // Their records are journaled again by the next write, with the turn after them.
  line('b');
  line('c');
  line('d');
  journal.write();
  t.same(
    LedgerJournal.read(path, 1).map((l) => (l as string[])[0]),
    ['a', 'b', 'c', 'd'],
    'every line written, once, in order',
  );
});
