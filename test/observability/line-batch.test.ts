// Access lines are joined before they reach stdout's sonic-boom (src/infra/log/line-batch.ts): a
// batch leaves at its size bound or its time bound, before any other line of the logger (the log
// keeps the order lines were logged in), and at exit, also when the process exits at once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { LineBatch } from '../../src/infra/log/line-batch.ts';

function fakeDest(): { writes: string[]; flushes: number; write(s: string): void; flush(): void } {
  return {
    writes: [],
    flushes: 0,
    write(s: string) {
      this.writes.push(s);
    },
    flush() {
      this.flushes++;
    },
  };
}

t.test('lines leave joined at the size bound, or at the time bound with a flush', async (t) => {
  const dest = fakeDest();
  const batch = new LineBatch(dest, 30, 50);
  batch.add('{"a":1}\n');
  batch.add('{"b":2}\n');
  t.same(dest.writes, [], 'below the size bound nothing is written yet');
  batch.add('{"c":3333333333333}\n');
  t.same(dest.writes, ['{"a":1}\n{"b":2}\n{"c":3333333333333}\n'], 'one write of the joined lines');
  t.equal(dest.flushes, 0, 'the destination writes it with its own batch');
  batch.add('{"d":4}\n');
  await new Promise((r) => setTimeout(r, 120));
  t.same(dest.writes.at(-1), '{"d":4}\n', 'a lone line leaves after the time bound');
  t.equal(dest.flushes, 1, 'and the destination is asked to write it now');
  batch.add('{"e":5}\n');
  batch.handOver();
  t.same(dest.writes.at(-1), '{"e":5}\n', 'handOver writes what has gathered');
  batch.handOver();
  t.equal(dest.writes.length, 3, 'and nothing when nothing has');
});

function runScript(t: Test, body: string[]): Record<string, unknown>[] {
  const dir = mkdtempSync(join(tmpdir(), 'line-batch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'log.ts');
  const logger = join(import.meta.dirname, '../../src/infra/log/logger.ts');
  writeFileSync(
    script,
    [
      `import { accessLine, createLogger } from ${JSON.stringify(logger)};`,
      `const log = createLogger('info');`,
      `const line = accessLine(log);`,
      ...body,
    ].join('\n'),
  );
  return execFileSync(process.execPath, [script], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

t.test('another line of the logger comes after the access lines logged before it', async (t) => {
  const lines = runScript(t, [
    `line('info', { request_id: 'first' });`,
    `line('info', { request_id: 'second' });`,
    `log.warn({ n: 1 }, 'a warning after two access lines');`,
    `line('info', { request_id: 'third' });`,
  ]);
  t.same(
    lines.map((l) => l.request_id ?? l.msg),
    ['first', 'second', 'a warning after two access lines', 'third'],
  );
  t.match(lines[0], { level: 'info', service: 'polygate', request_id: 'first' }, 'the access line as pino writes it');
  t.match(String(lines[0].time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

// (A line with a message starts an asynchronous write, which an exit right after does not wait
// for: sonic-boom's own behaviour, with or without the batch, so the lines here carry none.)
t.test('a process that exits at once: the access lines pending are written, in order', async (t) => {
  const lines = runScript(t, [
    `log.info({ request_id: 'pino' });`,
    `for (let i = 0; i < 5; i++) line('info', { request_id: 'r' + i });`,
    `process.exit(0);`,
  ]);
  t.same(
    lines.map((l) => l.request_id),
    ['pino', 'r0', 'r1', 'r2', 'r3', 'r4'],
  );
});
