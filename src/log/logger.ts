import { pino, type Logger } from 'pino';

/**
 * JSON logs on stdout. Header values that carry credentials are redacted wherever they appear,
 * as a second line of defence behind never logging request bodies by default.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'polygate' },
    redact: { paths: ['*.authorization', '*.["x-api-key"]', '*.["x-goog-api-key"]', '*.api_key', '*.secret'], censor: '[redacted]' },
  });
}
