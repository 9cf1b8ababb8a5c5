import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs on stdout, one object a line: the level as a word and the time as ISO 8601, so log
 * pipelines (Loki, Elasticsearch, jq) read them without pino's numeric conventions. Header values
 * that carry credentials are redacted wherever they appear, as a second line of defence behind
 * never logging request bodies unless `log.content` asks for them.
 *
 * Lines are written asynchronously (sonic-boom, `sync: false`): a request never waits on a write
 * to stdout, and lines that pile up while one write is in flight leave together in the next.
 * pino flushes what is pending when the process exits. `dest` replaces stdout (an in-process test
 * reads the lines, test/helpers/in-process-app.ts).
 */
export function createLogger(level: string, dest: DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  return pino({
    level,
    base: { service: 'polygate' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ['*.authorization', '*.["x-api-key"]', '*.["x-goog-api-key"]', '*.api_key', '*.secret', 'request_body.*.api_key', 'request_body.*.secret'],
      censor: '[redacted]',
    },
  }, dest);
}
