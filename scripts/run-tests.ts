// Runs the whole tap suite and closes with one plain line, `N passed, N failed`, that any CI can
// read, preceded by the failed tests by name (file, subtest, assertion, with tap's own source
// line): a CI that keeps only the end of the output still says what failed. The exit code is tap's own.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const child = spawn('tap', process.argv.slice(2), { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
let tail = '';
/** Open subtests by indentation (4 spaces a level): the path of the assertion that failed. */
const subtests: string[] = [];
const failures: string[] = [];
/** [file, wall ms] of every test file, from tap's top-level result lines. */
const fileTimes: [string, number][] = [];
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
  const end = /^( *)(not ok|ok) \d+ - (.*?)(?: # time=([\d.]+)ms)?$/.exec(line);
  if (!end) return;
  const depth = end[1].length / 4;
  // A top-level end line is one test file's, with tap's own wall time for it.
  if (depth === 0 && end[4] !== undefined) fileTimes.push([end[3], Number(end[4])]);
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
  if (fileTimes.length > 0) {
    // Every file's time goes to a file (one per line, slowest first); the slowest ten are printed,
    // so a slow suite says where its minutes go.
    fileTimes.sort((a, b) => b[1] - a[1]);
    mkdirSync('.tap', { recursive: true });
    writeFileSync('.tap/test-times.tsv', fileTimes.map(([f, ms]) => `${(ms / 1000).toFixed(1)}\t${f}\n`).join(''));
    const sum = fileTimes.reduce((a, [, ms]) => a + ms, 0) / 1000;
    process.stdout.write(
      `\nslowest test files (of ${fileTimes.length}, ${sum.toFixed(0)} s in all; every file in .tap/test-times.tsv):\n` +
        fileTimes
          .slice(0, 10)
          .map(([f, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${f}\n`)
          .join(''),
    );
  }
  if (m) {
    const passed = Number(m[2] ?? 0);
    const failed = Number(m[3] ?? 0) + (code !== 0 && Number(m[3] ?? 0) === 0 ? 1 : 0);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed\n`);
  }
  process.exit(code ?? 1);
});
