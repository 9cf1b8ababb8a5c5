// Runs the whole tap suite and closes with one plain line, `N passed, N failed`, that any CI can
// read, preceded by the failed tests by name (file, subtest, assertion, with tap's own source
// line): a CI that keeps only the end of the output still says what failed. The exit code is tap's own.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const child = spawn('tap', process.argv.slice(2), { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
let tail = '';
/** Open subtests by indentation (4 spaces a level): the path of the assertion that failed. */
const subtests: string[] = [];
const failures: string[] = [];
const lines = createInterface({ input: child.stdout });
lines.on('line', (line) => {
  process.stdout.write(`${line}\n`);
  tail = (tail + line + '\n').slice(-4096);
  const sub = /^( *)# Subtest: (.*)$/.exec(line);
  if (sub) {
    subtests.length = sub[1].length / 4;
    subtests.push(sub[2]);
    return;
  }
  const at = /^ +(?:fileName|lineNumber): (.*)$/.exec(line);
  if (at && failures.length > 0) {
    // The failed assertion's own place: the first fileName and lineNumber after it.
    const last = failures[failures.length - 1];
    if (/fileName/.test(line) && !last.includes(' at ')) failures[failures.length - 1] = `${last} at ${at[1]}`;
    else if (/lineNumber/.test(line) && / at [^:]*$/.test(last)) failures[failures.length - 1] = `${last}:${at[1]}`;
    return;
  }
  const end = /^( *)(not ok|ok) \d+ - (.*?)(?: # time=.*)?$/.exec(line);
  if (!end) return;
  const depth = end[1].length / 4;
  // A subtest's own end line (it repeats what its failed assertions said) closes it; only
  // failed assertions are listed.
  if (subtests[depth] === end[3]) {
    subtests.length = depth;
    return;
  }
  if (end[2] === 'not ok') failures.push([...subtests.slice(0, depth), end[3]].join(' > '));
});
// 'close', not 'exit': every line of tap's output has been read by then.
child.on('close', (code) => {
  const m = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/.exec(tail);
  if (failures.length > 0)
    process.stdout.write(
      `\nfailed:\n${failures
        .slice(0, 50)
        .map((f) => `  ${f}\n`)
        .join('')}${failures.length > 50 ? `  … and ${failures.length - 50} more\n` : ''}`,
    );
  if (m) {
    const passed = Number(m[2] ?? 0);
    const failed = Number(m[3] ?? 0) + (code !== 0 && Number(m[3] ?? 0) === 0 ? 1 : 0);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed\n`);
  }
  process.exit(code ?? 1);
});
