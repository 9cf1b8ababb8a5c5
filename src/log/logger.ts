import { pino, type Logger } from 'pino';

/**
 * JSON logs on stdout, one object a line: the level as a word and the time as ISO 8601, so log
 * pipelines (Loki, Elasticsearch, jq) read them without pino's numeric conventions. Header values
 * that carry credentials are redacted wherever they appear, as a second line of defence behind
 * never logging request bodies unless `log.content` asks for them.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'polygate' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ['*.authorization', '*.["x-api-key"]', '*.["x-goog-api-key"]', '*.api_key', '*.secret', 'request_body.*.api_key', 'request_body.*.secret'],
      censor: '[redacted]',
    },
  });
}
