// Access lines gathered into one string before they reach the log's destination. sonic-boom
// appends each write to its pending text and measures that whole text again (Buffer.byteLength
// flattens it: a copy of up to 16 KB per line), so handing it one line at a time cost ~4.5 µs of
// CPU and several KB of garbage per line, against ~1.9 µs for lines joined first
// (bench/RESULTS.md, "Session 9"). Order is kept: the logger writes a batch out before any line
// of its own (src/infra/log/logger.ts), and every batch is written at exit.
import type { DestinationStream } from 'pino';

/** pino's destination; a sonic-boom also has `flush` (write now) and `flushSync`. */
type Destination = DestinationStream & { flush?: () => void; flushSync?: () => void };

/** Batches with lines not written yet: written out when the process exits. */
const pending = new Set<LineBatch>();
let exitHooked = false;

/** The loop is about to end: each batch to its destination, written now (pino's handler then ends it). */
function flushAllPending(): void {
  for (const b of pending) b.flush();
}

/**
 * The process is exiting (no more loop turns): each batch is handed over, after its destination's
 * own lines, with no asynchronous write started for it, so the synchronous write pino's exit
 * handler makes next (sonic-boom's flushSync) carries it.
 */
function handOverAllPending(): void {
  for (const b of pending) b.handOverAtExit();
}

export class LineBatch {
  #lines: string[] = [];
  #size = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #dest: Destination;
  readonly #bytes: number;
  readonly #ms: number;

  /** Lines leave once `bytes` have gathered, or `ms` after the first one at the latest. */
  constructor(dest: Destination, bytes: number, ms: number) {
    this.#dest = dest;
    this.#bytes = bytes;
    this.#ms = ms;
  }

  add(line: string): void {
    this.#lines.push(line);
    this.#size += line.length;
    if (this.#size >= this.#bytes) {
      this.#write();
      return;
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(this.flush, this.#ms).unref();
      pending.add(this);
      if (!exitHooked) {
        exitHooked = true;
        // Before pino's own exit handlers, which then write out the destination's buffer.
        process.prependListener('beforeExit', flushAllPending);
        process.prependListener('exit', handOverAllPending);
      }
    }
  }

  /** Hands what has gathered to the destination (which writes it with its own batch). */
  handOver(): void {
    if (this.#lines.length > 0) this.#write();
  }

  /**
   * At exit: the destination's pending text written synchronously first (a sonic-boom's flushSync),
   * so that what is handed over next stays below its batch size and starts no asynchronous write,
   * which the process would not wait for.
   */
  handOverAtExit(): void {
    if (this.#lines.length === 0) return;
    try {
      this.#dest.flushSync?.();
    } catch {
      // Not ready or already closed: the lines are handed over all the same.
    }
    this.#write();
  }

  /** Hands what has gathered to the destination and has it written now (no fsync). */
  readonly flush = (): void => {
    if (this.#lines.length === 0) return;
    this.#write();
    this.#dest.flush?.();
  };

  #write(): void {
    const text = this.#lines.length === 1 ? this.#lines[0] : this.#lines.join('');
    this.#lines = [];
    this.#size = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    pending.delete(this);
    this.#dest.write(text);
  }
}
