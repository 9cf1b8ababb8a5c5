import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { budgetPeriods } from '../../infra/config/budget-spec.ts';
import type { Windows } from './budget-periods.ts';
import type { LedgerStore, PeriodTotal, Reservation, RowFilter, Spent } from './ledger-store.ts';
import { batchTotals, toMs, zeroSpent } from './ledger-store.ts';
import type { UsageRecord, UsageRow } from './usage-record.ts';
import { LedgerJournal, type WriteFile } from './ledger-journal.ts';
import {
  addRequestLogSchema,
  recordOf,
  requestLogColumns,
  requestLogValues,
  SqliteRequestLog,
} from './sqlite-request-log.ts';

// Tables of their own in the store's database file, opened on a second connection: the WAL journal
// lets the ledger's batch writes and the store's reads run side by side. `IF NOT EXISTS` instead
// of the store's numbered migrations, so the two never compete for PRAGMA user_version.
const schema = `
CREATE TABLE IF NOT EXISTS usage_records (
  ts INTEGER NOT NULL, day TEXT NOT NULL, request_id TEXT NOT NULL, key TEXT NOT NULL, workspace TEXT NOT NULL,
  family TEXT NOT NULL, model TEXT NOT NULL, provider TEXT NOT NULL, upstream_model TEXT NOT NULL,
  format_in TEXT NOT NULL, format_out TEXT NOT NULL, mode TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, characters INTEGER NOT NULL,
  audio_ms INTEGER NOT NULL, tasks INTEGER NOT NULL, cost_nano INTEGER NOT NULL, priced INTEGER NOT NULL,
  outcome TEXT NOT NULL, status INTEGER NOT NULL, usage_source TEXT NOT NULL DEFAULT 'reported',
  web_search_requests INTEGER NOT NULL DEFAULT 0, web_fetch_requests INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS usage_records_day ON usage_records (day, key);
CREATE TABLE IF NOT EXISTS usage_totals (
  key TEXT NOT NULL, period TEXT NOT NULL, cost_nano INTEGER NOT NULL, tokens INTEGER NOT NULL, PRIMARY KEY (key, period)
);
CREATE TABLE IF NOT EXISTS usage_flags (flag TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS usage_journal (
  id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, written INTEGER NOT NULL
);
INSERT OR IGNORE INTO usage_journal (id, generation, written) VALUES (1, 0, 0);`;

const columns = [
  'ts',
  'day',
  'request_id',
  'key',
  'workspace',
  'family',
  'model',
  'provider',
  'upstream_model',
  'format_in',
  'format_out',
  'mode',
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'characters',
  'audio_ms',
  'tasks',
  'cost_nano',
  'priced',
  'outcome',
  'status',
  'usage_source',
  'web_search_requests',
  'web_fetch_requests',
  ...requestLogColumns,
] as const;

/**
 * TOTAL, not SUM: a float that cannot overflow. A row stored before upstream usage was checked
 * (1e15 tokens) made SUM's int64 fail or exceed what node:sqlite reads as a number (a RangeError
 * on every read until the row aged out); sums below 2^53 are exact either way.
 */
const sums = `COUNT(*) AS requests, TOTAL(input_tokens) AS input_tokens, TOTAL(output_tokens) AS output_tokens, TOTAL(reasoning_tokens) AS reasoning_tokens,
  TOTAL(cache_read_tokens) AS cache_read_tokens, TOTAL(cache_write_tokens) AS cache_write_tokens, TOTAL(characters) AS characters,
  TOTAL(audio_ms) / 1000.0 AS audio_seconds, TOTAL(tasks) AS tasks, TOTAL(cost_nano) AS cost_nano, TOTAL(1 - priced) AS unpriced,
  TOTAL(usage_source = 'estimated') AS estimated, TOTAL(usage_source = 'partial') AS partial,
  TOTAL(web_search_requests) AS web_search_requests, TOTAL(web_fetch_requests) AS web_fetch_requests`;

/** Records per INSERT statement: one statement of many rows costs far less per record than one per row. */
const rowsPerInsert = 64;

/**
 * Records per append (one transaction): node:sqlite is synchronous, so a transaction holds every
 * request of the process; 2,000 records took milliseconds. Two full INSERT statements' worth holds
 * the event loop for a fraction of a millisecond and costs little more per record
 * (bench/ledger-flush-stall.ts, bench/RESULTS.md).
 */
export const sqliteAppendRows = 2 * rowsPerInsert;

/**
 * A journal line (ledger-journal.ts) as its record: the row's values in `columns` order (columns
 * are only ever added at the end: a shorter line's missing ones are null), or, from a version
 * before session 10, the record object itself.
 */
function recordOfLine(line: unknown): UsageRecord {
  if (!Array.isArray(line)) return line as UsageRecord;
  const row: Record<string, string | number | null> = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]] = (line[i] as string | number | null | undefined) ?? null;
  return recordOf(row);
}

/**
 * A record's values in `columns` order, written into `into` from `at`: arrays of a fixed length,
 * reused (emptied and pushed again, their backing store was given up and grown anew: the largest
 * allocation of the ledger per record).
 */
function valuesOf(r: UsageRecord, into: (string | number | null)[], at: number): void {
  into[at] = r.ts;
  into[at + 1] = r.day;
  into[at + 2] = r.request_id;
  into[at + 3] = r.key;
  into[at + 4] = r.workspace;
  into[at + 5] = r.family;
  into[at + 6] = r.model;
  into[at + 7] = r.provider;
  into[at + 8] = r.upstream_model;
  into[at + 9] = r.format_in;
  into[at + 10] = r.format_out;
  into[at + 11] = r.mode;
  into[at + 12] = r.input_tokens;
  into[at + 13] = r.output_tokens;
  into[at + 14] = r.reasoning_tokens;
  into[at + 15] = r.cache_read_tokens;
  into[at + 16] = r.cache_write_tokens;
  into[at + 17] = r.characters;
  into[at + 18] = toMs(r.audio_seconds);
  into[at + 19] = r.tasks;
  into[at + 20] = r.cost_nano;
  into[at + 21] = r.priced ? 1 : 0;
  into[at + 22] = r.outcome;
  into[at + 23] = r.status;
  into[at + 24] = r.usage_source;
  into[at + 25] = r.web_search_requests;
  into[at + 26] = r.web_fetch_requests;
  requestLogValues(r, into, at + 27);
}

/**
 * Columns a file written by an older polygate lacks: its rows' usage was reported, and it ran no
 * searches or fetches (#27).
 */
function addNewColumns(db: DatabaseSync): void {
  const cols = db.prepare('PRAGMA table_info(usage_records)').all() as { name: string }[];
  const missing = (name: string): boolean => !cols.some((c) => c.name === name);
  if (missing('usage_source'))
    db.exec("ALTER TABLE usage_records ADD COLUMN usage_source TEXT NOT NULL DEFAULT 'reported'");
  for (const name of ['web_search_requests', 'web_fetch_requests'])
    if (missing(name)) db.exec(`ALTER TABLE usage_records ADD COLUMN ${name} INTEGER NOT NULL DEFAULT 0`);
}

/** The `sqlite` driver's ledger: tables beside the store's in the same file. */
export class SqliteLedgerStore implements LedgerStore {
  readonly local = true;
  readonly maxAppend = sqliteAppendRows;
  readonly #db: DatabaseSync;
  /** GET /admin/requests (#25): the records one by one and the content captured beside them. */
  readonly requestLog: SqliteRequestLog;
  /** Undefined for an in-memory database (nothing survives its process anyway). */
  #journal: LedgerJournal | undefined;
  /** The journal generation the database counts lines of (`usage_journal`). */
  #generation = 0;
  /**
   * The journal's file is not the database's generation (a rotation could not open the next one):
   * nothing is journaled until an append moves both to a fresh generation.
   */
  #journalOff = false;
  /** Journal lines appended since the last rotation, and lines dropped unwritten (counted as held). */
  #sinceRotation = 0;
  readonly #rotateLines: number;
  #skipped = 0;
  /** One row's values, and `rowsPerInsert` rows' (valuesOf): allocated once. */
  readonly #lineValues: (string | number | null)[] = new Array<null>(columns.length).fill(null);
  readonly #manyValues: (string | number | null)[] = new Array<null>(columns.length * rowsPerInsert).fill(null);
  readonly #q: Record<
    | 'begin'
    | 'commit'
    | 'rollback'
    | 'insert'
    | 'insertMany'
    | 'addTotal'
    | 'total'
    | 'rows'
    | 'rowsOfKey'
    | 'pruneRecords'
    | 'pruneTotals'
    | 'claimFlag'
    | 'pruneFlags'
    | 'journalState'
    | 'journalWritten'
    | 'journalNext',
    StatementSync
  >;

  /**
   * `journalLines`: the lines a journal generation holds before the next one starts (once every
   * journaled record is in the database). A rotation is a sqlite transaction, a close, an open, a
   * directory read and an unlink: once per drained batch (~500 records) it was ~2 % of the
   * ledger's CPU per record; a start reads at most a generation's lines (4,096: ~1 MB) either way.
   */
  constructor(
    path: string,
    { journalLines = 4_096, journalWrite }: { journalLines?: number; journalWrite?: WriteFile } = {},
  ) {
    this.#rotateLines = Math.max(1, journalLines);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.#db.exec(schema);
    addNewColumns(this.#db);
    addRequestLogSchema(this.#db);
    this.requestLog = new SqliteRequestLog(this.#db);
    const row = `(${columns.map(() => '?').join(', ')})`;
    const group = `SELECT day, key, model, provider, ${sums} FROM usage_records WHERE day >= ? AND day <= ?`;
    this.#q = {
      // Prepared once: a transaction per turn of the event loop (group commit, src/services/usage/ledger.ts) parsed them every time.
      begin: this.#db.prepare('BEGIN IMMEDIATE'),
      commit: this.#db.prepare('COMMIT'),
      rollback: this.#db.prepare('ROLLBACK'),
      insert: this.#db.prepare(`INSERT INTO usage_records (${columns.join(', ')}) VALUES ${row}`),
      insertMany: this.#db.prepare(
        `INSERT INTO usage_records (${columns.join(', ')}) VALUES ${Array(rowsPerInsert).fill(row).join(', ')}`,
      ),
      addTotal: this.#db.prepare(
        `INSERT INTO usage_totals (key, period, cost_nano, tokens) VALUES (?, ?, ?, ?)
         ON CONFLICT (key, period) DO UPDATE SET cost_nano = cost_nano + excluded.cost_nano, tokens = tokens + excluded.tokens`,
      ),
      // As floats, like the report's sums: a total past 2^53 stored before upstream usage was
      // checked must not make every budget check and /admin/budgets throw.
      total: this.#db.prepare(
        'SELECT cost_nano * 1.0 AS cost_nano, tokens * 1.0 AS tokens FROM usage_totals WHERE key = ? AND period = ?',
      ),
      rows: this.#db.prepare(`${group} GROUP BY day, key, model, provider`),
      rowsOfKey: this.#db.prepare(`${group} AND key = ? GROUP BY day, key, model, provider`),
      pruneRecords: this.#db.prepare('DELETE FROM usage_records WHERE day < ?'),
      // Days, hours and weeks by their start day (months are kept, as before; a 30-day window is one row a month).
      pruneTotals: this.#db.prepare(
        `DELETE FROM usage_totals WHERE (period LIKE 'd:%' AND period < 'd:' || ?1) OR (period LIKE 'h:%' AND period < 'h:' || ?1)
           OR (period LIKE 'w:%' AND period < 'w:' || ?1) OR (period LIKE 't:%' AND period < 't:' || ?1)`,
      ),
      // Set unless set and still valid: one row changed means this caller set it.
      claimFlag: this.#db.prepare(
        `INSERT INTO usage_flags (flag, expires_at) VALUES (?1, ?2)
         ON CONFLICT (flag) DO UPDATE SET expires_at = excluded.expires_at WHERE usage_flags.expires_at <= ?3`,
      ),
      pruneFlags: this.#db.prepare('DELETE FROM usage_flags WHERE expires_at <= ?'),
      journalState: this.#db.prepare('SELECT generation, written FROM usage_journal WHERE id = 1'),
      journalWritten: this.#db.prepare('UPDATE usage_journal SET written = written + ? WHERE id = 1'),
      journalNext: this.#db.prepare('UPDATE usage_journal SET generation = ?, written = 0 WHERE id = 1'),
    };
    if (path !== ':memory:') this.#journal = this.#recover(path, journalWrite);
  }

  /**
   * The lines of the last generation the database does not hold yet (a crash came between their
   * write and their batch), written in with the move to the next generation, in one transaction.
   */
  #recover(path: string, journalWrite: WriteFile | undefined): LedgerJournal {
    const state = this.#q.journalState.get() as { generation: number; written: number };
    const lost = LedgerJournal.read(path, state.generation).slice(state.written).map(recordOfLine);
    this.#q.begin.run();
    try {
      this.#insert(lost);
      this.#q.journalNext.run(state.generation + 1);
      this.#q.commit.run();
    } catch (e) {
      this.#q.rollback.run();
      throw e;
    }
    this.#generation = state.generation + 1;
    const journal = new LedgerJournal(path, this.#generation, journalWrite);
    LedgerJournal.removeBefore(path, this.#generation);
    return journal;
  }

  /**
   * Written ahead of `append`, in the same order (src/services/usage/ledger.ts): a line of each
   * record's row values, built in one reused array.
   */
  journal(records: readonly UsageRecord[]): void {
    const j = this.#journal;
    if (j === undefined) return;
    if (this.#journalOff) throw new Error('the ledger journal is off until its next generation opens');
    const values = this.#lineValues;
    try {
      // Indexed: no iterator and result objects per record.
      for (let i = 0; i < records.length; i++) {
        valuesOf(records[i], values, 0);
        j.line(JSON.stringify(values));
      }
    } catch (e) {
      // None of them is journaled: no line of theirs may go out with the next write.
      j.drop();
      throw e;
    }
    j.write();
  }

  /** Journaled records the ledger dropped unwritten: the next batch counts their lines as held. */
  forget(n: number): void {
    this.#skipped += n;
  }

  /** Every journaled record is in the database: a fresh generation once this one holds `journalLines`, the old one deleted. */
  rotate(): void {
    if (this.#journal === undefined || this.#sinceRotation < this.#rotateLines) return;
    this.#q.journalNext.run(this.#generation + 1);
    this.#nextGeneration();
  }

  /**
   * The journal follows the database to its next generation. When the file cannot be opened, the
   * journal is off: its lines would go to a generation a start no longer reads, so the ledger sends
   * records to the database unjournaled, and each such append tries a fresh generation again.
   */
  #nextGeneration(): void {
    this.#generation++;
    this.#sinceRotation = 0;
    this.#skipped = 0;
    try {
      this.#journal?.rotate(this.#generation);
      this.#journalOff = false;
    } catch {
      this.#journalOff = true;
    }
  }

  /** One transaction per call: the records are in the file all or none, with the journal's count of them. */
  async append(
    records: UsageRecord[],
    _settled?: readonly Reservation[],
    totals?: readonly PeriodTotal[],
    unjournaled = 0,
  ): Promise<void> {
    // Records the journal could not take (the batch's last `unjournaled`; every journaled one is
    // before them): the journal's lines of this generation are all in the database with them, so
    // the same transaction moves to the next generation, and a start never reads a line this
    // generation's file may hold of them (a write that failed part way): none doubled.
    const next = unjournaled > 0 && this.#journal !== undefined;
    this.#q.begin.run();
    try {
      this.#insert(records, totals);
      if (next) this.#q.journalNext.run(this.#generation + 1);
      else if (this.#journal) this.#q.journalWritten.run(records.length + this.#skipped);
      this.#q.commit.run();
    } catch (e) {
      this.#q.rollback.run();
      throw e;
    }
    if (next) return this.#nextGeneration();
    this.#sinceRotation += records.length + this.#skipped;
    this.#skipped = 0;
  }

  #insert(records: readonly UsageRecord[], totals: readonly PeriodTotal[] = batchTotals(records)): void {
    let i = 0;
    const many = this.#manyValues;
    for (; i + rowsPerInsert <= records.length; i += rowsPerInsert) {
      for (let j = 0; j < rowsPerInsert; j++) valuesOf(records[i + j], many, j * columns.length);
      this.#q.insertMany.run(...many);
    }
    const one = this.#lineValues;
    for (; i < records.length; i++) {
      valuesOf(records[i], one, 0);
      this.#q.insert.run(...one);
    }
    for (const t of totals) this.#q.addTotal.run(t.scope, t.period, t.costNano, t.tokens);
  }

  async totals(scope: string, windows: Windows): Promise<Spent> {
    const out = zeroSpent();
    for (const p of budgetPeriods) {
      const r = this.#q.total.get(scope, windows[p].bucket) as { cost_nano: number; tokens: number } | undefined;
      if (r) out[p] = { costNano: r.cost_nano, tokens: r.tokens };
    }
    return out;
  }

  async claimOnce(flag: string, expiresAt: number): Promise<boolean> {
    return Number(this.#q.claimFlag.run(flag, expiresAt, Date.now()).changes) === 1;
  }

  async rows(f: RowFilter): Promise<UsageRow[]> {
    const rows =
      f.key === undefined ? this.#q.rows.all(f.since, f.until) : this.#q.rowsOfKey.all(f.since, f.until, f.key);
    return rows.map((r) => ({ ...r }) as UsageRow);
  }

  async prune(day: string): Promise<void> {
    this.#q.pruneRecords.run(day);
    this.#q.pruneTotals.run(day);
    this.#q.pruneFlags.run(Date.now());
    this.requestLog.prune(day);
  }

  async close(): Promise<void> {
    this.#journal?.close();
    this.#journal = undefined;
    if (this.#db.isOpen) this.#db.close();
  }
}
