// The sqlite ledger's journal (docs/usage-and-tracing.md): records are appended to a plain file
// beside the database, one JSON line each (the record's row values, sqlite-ledger-store.ts: half the
// bytes and half the `JSON.stringify` of the record object, which older versions wrote and which is
// still read), in one write per turn of the event loop, before their
// answers' last bytes go out; the database takes them in batches every flush interval as before.
// A write into the page cache survives `kill -9` at a few microseconds a record, where a sqlite
// transaction per turn cost ~25 µs (bench/RESULTS.md). The database counts, in the transaction of
// each batch, how many of the current generation's lines it holds; at start the lines past that
// count are written in, so a crash neither loses nor doubles a record.
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** `fs.writeSync` of part of a buffer: the bytes written. */
export type WriteFile = (fd: number, buffer: Buffer, offset: number, length: number) => number;

const suffix = '.ledger-journal.';
const initialBytes = 16_384;
const keptBytes = 1 << 20;

export class LedgerJournal {
  readonly #db: string;
  #fd: number;
  #generation: number;
  #buf = Buffer.allocUnsafeSlow(initialBytes);
  /** Bytes of `#buf` holding lines not written yet. */
  #at = 0;
  /** Bytes of whole lines in the file; `#cut` when a failed write may have left part of a line after them. */
  #size: number;
  #cut = false;

  readonly #writeFile: WriteFile;

  /**
   * Opens generation `generation` of the journal of the database at `dbPath` for appending.
   * `writeFile`: `fs.writeSync` (a test passes one that fails part way).
   */
  constructor(dbPath: string, generation: number, writeFile: WriteFile = writeSync) {
    this.#db = dbPath;
    this.#generation = generation;
    this.#writeFile = writeFile;
    this.#fd = openSync(LedgerJournal.fileOf(dbPath, generation), 'a');
    this.#size = fstatSync(this.#fd).size;
  }

  static fileOf(dbPath: string, generation: number): string {
    return `${dbPath}${suffix}${generation}`;
  }

  /** The lines of one generation, parsed, in the order written; a line cut short (a crash mid-write) ends the list. */
  static read(dbPath: string, generation: number): unknown[] {
    let text: string;
    try {
      text = readFileSync(LedgerJournal.fileOf(dbPath, generation), 'utf8');
    } catch {
      return [];
    }
    const out: unknown[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        break;
      }
    }
    return out;
  }

  /** Deletes every generation before `generation` (their records are in the database). */
  static removeBefore(dbPath: string, generation: number): void {
    const prefix = basename(dbPath) + suffix;
    let names: string[];
    try {
      names = readdirSync(dirname(dbPath));
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const g = Number(name.slice(prefix.length));
      if (!Number.isInteger(g) || g >= generation) continue;
      // One left behind is never read (a start reads the database's generation only): it goes at
      // the next rotation or start, and must not stop either.
      try {
        unlinkSync(join(dirname(dbPath), name));
      } catch {
        /* kept until the next try */
      }
    }
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Adds a line (JSON, without its newline) to the next `write`, encoded into a buffer kept
   * for the purpose: a turn's text concatenated as a string was flattened and copied again by the
   * write, a few hundred bytes per record.
   */
  line(json: string): void {
    const need = this.#at + json.length * 3 + 1;
    if (need > this.#buf.length) {
      const b = Buffer.allocUnsafeSlow(Math.max(need, this.#buf.length * 2));
      this.#buf.copy(b, 0, 0, this.#at);
      this.#buf = b;
    }
    this.#at += this.#buf.write(json, this.#at);
    this.#buf[this.#at++] = 10;
  }

  /** Forgets the lines added since the last `write` (their records were not journaled). */
  drop(): void {
    this.#at = 0;
  }

  /** One write for the lines added since the last: in the page cache when it returns. Throws if it could not be written (the lines are dropped). */
  write(): void {
    const n = this.#at;
    this.#at = 0;
    const b = this.#buf;
    // A turn of very many records (a catch-up after failed writes) does not keep its buffer.
    if (b.length > keptBytes) this.#buf = Buffer.allocUnsafeSlow(initialBytes);
    // A write that failed part way left a cut line: cut back to the last whole one first, or the
    // lines after it would be unreadable at the next start (read stops at a cut line), though
    // their answers went out. Until the file is cut back, nothing more is journaled.
    if (this.#cut) {
      ftruncateSync(this.#fd, this.#size);
      this.#cut = false;
    }
    let off = 0;
    try {
      while (off < n) off += this.#writeFile(this.#fd, b, off, n - off);
    } catch (e) {
      this.#cut = off > 0 || this.#cut;
      throw e;
    }
    this.#size += n;
  }

  /** Starts generation `next` and deletes the ones before it (the database holds every record they had). */
  rotate(next: number): void {
    // The new file opened before the old one is closed: an open that fails (EMFILE, EISDIR) leaves
    // the journal on a descriptor that is still its own, never on a closed number another file may get.
    const fd = openSync(LedgerJournal.fileOf(this.#db, next), 'a');
    const size = fstatSync(fd).size;
    closeSync(this.#fd);
    this.#fd = fd;
    this.#generation = next;
    this.#size = size;
    this.#cut = false;
    LedgerJournal.removeBefore(this.#db, next);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
