import { pino, type DestinationStream, type Logger } from 'pino';
import { LineBatch } from './line-batch.ts';

/**
 * About fifty access lines per write; none waits more than a tenth of a second. 32 KiB rather than
 * 8: a write's own CPU (~12 µs, a libuv thread-pool job) spread over four times the lines, 0.1-0.45 µs
 * less per line (bench/RESULTS.md, "Session 10"). sonic-boom's `maxWrite` must stay above it.
 */
export const logBatch = { bytes: 32768, flushMs: 100 };

/**
 * JSON logs on stdout, one object a line: the level as a word and the time as ISO 8601, so log
 * pipelines (Loki, Elasticsearch, jq) read them without pino's numeric conventions. Header values
 * that carry credentials are redacted wherever they appear, as a second line of defence behind
 * never logging request bodies unless `log.content` asks for them.
 *
 * Lines are written asynchronously (sonic-boom, `sync: false`) and in batches: a request never
 * waits on a write to stdout, and a write(2) (a libuv thread-pool job and its completion on the
 * loop) per line cost ~5 % of a request's CPU at a few thousand requests a second (bench/RESULTS.md,
 * "Speed, round two"). Lines leave once `logBatch.bytes` have gathered, or at the latest every
 * `logBatch.flushMs`, so a quiet gateway's line still shows within that time. Only the request
 * lines wait for a batch: a line with a message (start-up, a breaker opening, a provider disabled)
 * or a warning starts a write of everything waiting at once, unless a write is already under way
 * (then it leaves with the next one, within `logBatch.flushMs`). pino writes out what is pending when
 * the process exits. Access lines are joined into one string before sonic-boom takes them
 * (src/infra/log/line-batch.ts, same size and time bounds, written before any other line and at
 * exit). `dest` replaces stdout and is written line by line (an in-process test reads the lines,
 * test/helpers/in-process-app.ts).
 */
export function createLogger(level: string, dest?: DestinationStream): Logger {
  const out =
    dest ??
    pino.destination({
      dest: 1,
      sync: false,
      minLength: logBatch.bytes,
      maxWrite: 2 * logBatch.bytes,
      periodicFlush: logBatch.flushMs,
    });
  const flush = (out as { flush?: () => void }).flush?.bind(out);
  // Access lines are joined before they reach stdout's sonic-boom (src/infra/log/line-batch.ts); a
  // destination given by the caller (a test's reader) gets each line as it is logged.
  const batch = dest === undefined ? new LineBatch(out, logBatch.bytes, logBatch.flushMs) : undefined;
  const log = pino(
    {
      level,
      hooks: {
        logMethod(args, method, levelValue) {
          // Access lines gathered so far leave first: the log keeps the order lines were logged in.
          batch?.handOver();
          method.apply(this, args);
          // A line with a message (not a request's access line), or any warning: written now.
          // (sonic-boom's flush with a callback would also fsync: none is passed.)
          if (levelValue >= 40 || typeof args[args.length - 1] === 'string') flush?.();
        },
      },
      base: { service: 'polygate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: [
          '*.authorization',
          '*.["x-api-key"]',
          '*.["x-goog-api-key"]',
          '*.api_key',
          '*.secret',
          'request_body.*.api_key',
          'request_body.*.secret',
        ],
        censor: '[redacted]',
      },
    },
    out,
  );
  (log as unknown as Record<symbol, unknown>)[batchSym] = batch;
  return log;
}

/** Where a logger made by createLogger keeps its access-line batch (children inherit it). */
const batchSym = Symbol('polygate.lineBatch');

const batchOf = (log: Logger): LineBatch | undefined =>
  (log as unknown as Record<symbol, LineBatch | undefined>)[batchSym];

/**
 * Writes a plain line (the start-up announcement for supervisors and tests, src/main.ts) through the
 * logger's own destination, so it leaves after every log line before it: a reader that waits for
 * it has the start-up warnings too (written straight to stdout, it could overtake a batch).
 */
export function writeAfterLog(log: Logger, line: string): void {
  const dest = (log as unknown as Record<symbol, DestinationStream & { flush?: () => void }>)[pino.symbols.streamSym];
  batchOf(log)?.handOver();
  dest.write(line);
  dest.flush?.();
}

/** Writes one access line (`level` and fields, no message) as `log` would, or nothing below its level. */
export type AccessLine = (level: 'info' | 'debug', fields: Record<string, unknown>) => void;

/**
 * The request's access line, serialized by one `JSON.stringify` and written to the logger's own
 * destination: the same line pino writes (level word, ISO time, the logger's bindings, then the
 * fields; undefined fields left out), without pino's per-field serializer loop (~4 KB of garbage a
 * line; with the line batch, 6.5 -> 2.9 µs of CPU a line: bench/RESULTS.md, "Session 9"). Only
 * for lines whose fields are fixed and carry no credential (no redaction walk, no serializers):
 * a line with the request body still goes through pino.
 */
export function accessLine(log: Logger): AccessLine {
  const own = log as unknown as Record<symbol, unknown>;
  const dest = own[pino.symbols.streamSym] as DestinationStream;
  // The bindings as pino keeps them, already serialized: `,"service":"polygate"`.
  const bindings = String(own[pino.symbols.chindingsSym] ?? '');
  const batch = batchOf(log);
  // pino's isoTime (`,"time":"<Date.now() as ISO 8601>"`), asked once per millisecond: lines
  // logged in the same millisecond (several at a few thousand requests a second) share it, and
  // share the line's head before the fields (level, time, bindings, as one string: each line
  // then joins two strings to it, not seven).
  const isoTime = pino.stdTimeFunctions.isoTime;
  let timeMs = Number.NaN;
  let time = '';
  let headLevel = '';
  let head = '';
  return (level, fields) => {
    if (!log.isLevelEnabled(level)) return;
    const now = Date.now();
    if (now !== timeMs) {
      timeMs = now;
      time = isoTime();
      headLevel = '';
    }
    if (level !== headLevel) {
      headLevel = level;
      head = `{"level":"${level}"${time}${bindings},`;
    }
    const json = JSON.stringify(fields);
    const line = json.length > 2 ? `${head}${json.slice(1)}\n` : `${head.slice(0, -1)}}\n`;
    if (batch) batch.add(line);
    else dest.write(line);
  };
}
