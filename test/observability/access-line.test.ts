// accessLine (src/infra/log/logger.ts) writes the request's line itself, without pino's
// serializer loop, and makes the time once per millisecond: its lines must be pino's own, byte for
// byte. Random records (strings to escape, numbers, undefined fields, nested values) are logged
// both ways at the same (stubbed) clock, across millisecond changes, and compared.
import t from 'tap';
import { Writable } from 'node:stream';
import { accessLine, createLogger } from '../../src/infra/log/logger.ts';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

t.test("the access line is pino's line, byte for byte", async (t) => {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger('debug', dest as never);
  const line = accessLine(log);
  const rnd = seeded(28);
  const text = (): string =>
    Array.from({ length: Math.floor(rnd() * 12) }, () => String.fromCharCode(Math.floor(rnd() * 0x250))).join('');
  const value = (): unknown => {
    const r = rnd();
    if (r < 0.2) return undefined;
    if (r < 0.5) return text();
    if (r < 0.7) return Math.round(rnd() * 1e6) / 1e3;
    if (r < 0.8) return Math.floor(rnd() * 1000);
    if (r < 0.85) return true;
    if (r < 0.9) return [text(), 1];
    return { inner: text() };
  };
  const realNow = Date.now;
  let clock = 1_764_000_000_000;
  Date.now = () => clock;
  t.teardown(() => {
    Date.now = realNow;
  });
  let differ = 0;
  for (let i = 0; i < 2000; i++) {
    if (rnd() < 0.3) clock += Math.floor(rnd() * 3);
    const fields: Record<string, unknown> = {};
    for (const k of ['request_id', 'method', 'route', 'key', 'model', 'status', 'duration_ms', 'tokens_in', 'x'])
      if (rnd() < 0.9) fields[k] = value();
    const level = rnd() < 0.8 ? 'info' : 'warn';
    if (level === 'warn') {
      // A level the access line is never used with: only to move pino's own path between lines.
      log.warn('between');
      lines.length = 0;
      continue;
    }
    lines.length = 0;
    // Both levels it is used with, mixed within a millisecond (the line's head is kept per level and time).
    const own = rnd() < 0.7 ? 'info' : 'debug';
    line(own, fields);
    log[own](fields);
    if (lines.length !== 2 || lines[0] !== lines[1]) differ++;
  }
  t.equal(differ, 0, '2,000 random records: the same line both ways');
});
