// Child processes: arguments are never shell-parsed, a hung program is killed at its timeout, a
// missing one is reported as missing, and a cancelled request stops its program.
import t from 'tap';
import { runTool, ToolError } from '../../src/families/speech/run-tool.ts';

t.test('arguments reach the program verbatim (no shell)', async (t) => {
  const out = await runTool('/bin/echo', ['$(id)', '; rm -rf /', '`x`'], { timeoutMs: 5000 });
  t.equal(out.toString(), '$(id) ; rm -rf / `x`\n');
});

t.test('a program past its timeout is killed and reported', async (t) => {
  const e = await runTool('/bin/sleep', ['30'], { timeoutMs: 100 }).catch((x: unknown) => x);
  t.ok(e instanceof ToolError && e.timedOut, 'timed out');
});

t.test('a missing program is reported as missing', async (t) => {
  const e = await runTool('/nonexistent/espeak-ng', [], { timeoutMs: 1000 }).catch((x: unknown) => x);
  t.ok(e instanceof ToolError && e.missing);
});

t.test('a failing program: exit code and stderr tail kept', async (t) => {
  const e = await runTool('/bin/sh', ['-c', 'echo broken >&2; exit 3'], { timeoutMs: 5000 }).catch((x: unknown) => x);
  t.ok(e instanceof ToolError);
  t.equal((e as ToolError).exitCode, 3);
  t.equal((e as ToolError).stderr, 'broken\n');
});

t.test('an aborted request stops the program', async (t) => {
  const ac = new AbortController();
  const running = runTool('/bin/sleep', ['30'], { timeoutMs: 60_000, signal: ac.signal }).catch((x: unknown) => x);
  ac.abort();
  const e = await running;
  t.ok(e instanceof ToolError && e.aborted);
});
