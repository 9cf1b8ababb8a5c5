// Runs the test files (test/**/*.test.ts, or the files and folders named) several at a time, the
// slowest first (scripts/test-files.ts), each in its own Node process as tap's runner would, and
// prints tap's output: one block per file as it ends. It closes with one plain line,
// `N passed, N failed`, that any CI can read, preceded by the failed tests by name (file,
// subtest, assertion, with tap's own source line): a CI that keeps only the end of the output
// still says what failed. The exit code is 1 if any file failed.
//
// Why not tap's own runner: it runs the files in name order, one at a time on a two-core machine
// (its default leaves a core free), so the suite's time was the sum of every file's; and it loads
// its coverage and mocking hooks into every test process and every gateway a test spawns (about
// half a second of CPU each for a test that starts a gateway). Each file is still a tap test:
// `npx tap FILE` runs one alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { knownTimes, slowestFirst, testFiles, TIMES_FILE } from './test-files.ts';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { tap?: { timeout?: number } };
/** tap's per-file timeout (package.json `tap.timeout`, seconds). */
const timeoutS = pkg.tap?.timeout ?? 30;
/**
 * Files at once: most of a test's time is spent waiting (on a gateway, an emulator, a timer), so
 * one per core and never fewer than two. TEST_JOBS overrides it (1 runs them one after another).
 */
const jobs = Number(process.env.TEST_JOBS) || Math.max(2, availableParallelism());

/** Open subtests by indentation (4 spaces a level): the path of the assertion that failed. */
const subtests: string[] = [];
/** For each open subtest, how many failures had been named when it opened. */
const failedBefore: number[] = [];
const failures: string[] = [];
const counts = { pass: 0, fail: 0 };

/** Reads one line of the combined output: open subtests, assertions counted, failures named. */
function read(line: string): void {
  const sub = /^( *)# Subtest: (.*)$/.exec(line);
  if (sub) {
    subtests.length = failedBefore.length = sub[1].length / 4;
    subtests.push(sub[2]);
    failedBefore.push(failures.length);
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
  // A subtest's own end line (it repeats what its failed assertions said) closes it; only
  // failed assertions are listed. A file's end line (depth 0) is not an assertion.
  if (subtests[depth] === end[3]) {
    // A subtest (or a file) that failed with none of its assertions failing (it threw, it timed
    // out, its count did not match its plan, its process exited non-zero) is a failure itself.
    if (end[2] === 'not ok' && failures.length === failedBefore[depth]) {
      counts.fail++;
      failures.push(subtests.slice(0, depth + 1).join(' > '));
    }
    subtests.length = failedBefore.length = depth;
    return;
  }
  if (depth > 0) counts[end[2] === 'ok' ? 'pass' : 'fail']++;
  if (end[2] === 'not ok') failures.push([...subtests.slice(0, depth), end[3]].join(' > '));
}

function emit(text: string): void {
  process.stdout.write(text);
  for (const line of text.split('\n')) read(line);
}

type Ended = { file: string; out: string; code: number | null; signal: string | null; timedOut: boolean; ms: number };
const running = new Set<ReturnType<typeof spawn>>();

/** Runs one test file as tap's runner does (TAP=1: the file prints TAP and no report). */
function runFile(file: string, id: number, slot: number): Promise<Ended> {
  const started = performance.now();
  const child = spawn(process.execPath, [file], {
    cwd: root,
    env: {
      ...process.env,
      TAP: '1',
      TAP_CHILD_ID: String(id),
      TAP_JOB_ID: String(slot),
      TAP_TIMEOUT: String(timeoutS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  let out = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (out += d));
  // The file's own tap times out first and says what was still open; past a few seconds more,
  // SIGALRM (tap's timeout signal), then SIGKILL.
  const timer = setTimeout(
    () => {
      timedOut = true;
      child.kill('SIGALRM');
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
    },
    (timeoutS + 5) * 1000,
  );
  return new Promise((done) => {
    const finish = (code: number | null, signal: string | null): void => {
      clearTimeout(timer);
      running.delete(child);
      done({ file, out, code, signal, timedOut, ms: performance.now() - started });
    };
    child.once('error', (err) => {
      out += `\nnot ok 1 - the test process did not start: ${err.message}\n`;
      finish(1, null);
    });
    child.once('close', finish);
  });
}

/** A file's block as tap prints it: its TAP indented under `# Subtest:`, then its own result line. */
function block(r: Ended, n: number): string {
  const lines = r.out.replace(/\n$/, '').split('\n');
  const body = lines.filter((l) => !/^TAP version \d+$/.test(l)).map((l) => `    ${l}`.trimEnd() || '    ');
  const own = /^# time=([\d.]+)ms$/m.exec(r.out)?.[1];
  const ok = r.code === 0 && r.signal === null && !r.timedOut;
  const diag = ok
    ? ''
    : `  ---\n  exitCode: ${r.code}\n  signal: ${r.signal}\n${r.timedOut ? `  timeout: ${timeoutS * 1000}\n` : ''}  ...\n`;
  return `# Subtest: ${r.file}\n${body.join('\n')}\n${ok ? 'ok' : 'not ok'} ${n} - ${r.file} # time=${own ?? r.ms.toFixed(3)}ms\n${diag}\n`;
}

const known = knownTimes(root);
const files = slowestFirst(testFiles(root, process.argv.slice(2)), known);
if (files.length === 0) {
  process.stderr.write('No test files found\n');
  process.exit(1);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const c of running) c.kill('SIGKILL');
    process.exit(130);
  });

const t0 = performance.now();
emit(`TAP version 14\n1..${files.length}\n`);
const ended: Ended[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(jobs, files.length) }, async (_, slot) => {
    while (next < files.length) {
      const i = next++;
      const r = await runFile(files[i], i + 1, slot);
      ended.push(r);
      emit(block(r, ended.length));
    }
  }),
);
const wallS = (performance.now() - t0) / 1000;
const failedFiles = ended.filter((r) => r.code !== 0 || r.signal !== null || r.timedOut);
// A file that failed with no failed assertion (a crash, a timeout, an exit code) counts as one failure.
const failed = counts.fail + failedFiles.filter((r) => !/^ *not ok /m.test(r.out)).length;
emit(`# { total: ${counts.pass + failed}, pass: ${counts.pass}${failed > 0 ? `, fail: ${failed}` : ''} }\n`);
emit(`# time=${(wallS * 1000).toFixed(3)}ms\n`);

// Files that failed with no failed assertion are named after the assertions that failed.
for (const r of failedFiles)
  if (!/^ *not ok /m.test(r.out))
    failures.push(`${r.file}: ${r.timedOut ? 'timed out' : `exit ${r.code ?? r.signal}`}`);
if (failures.length > 0)
  process.stdout.write(
    `\nfailed:\n${failures
      .slice(0, 50)
      .map((f) => `  ${f}\n`)
      .join('')}${failures.length > 50 ? `  … and ${failures.length - 50} more\n` : ''}`,
  );

// Every file's time (its process's wall, start-up included: what the schedule pays) goes to a file,
// slowest first, with the times of files this run did not run (those that still exist): it orders
// the next run. The slowest ten of this run are printed.
ended.sort((a, b) => b.ms - a.ms);
for (const r of ended) known.set(r.file, Number((r.ms / 1000).toFixed(1)));
const all = [...known].filter(([f]) => existsSync(resolve(root, f))).sort((a, b) => b[1] - a[1]);
mkdirSync(resolve(root, '.tap'), { recursive: true });
writeFileSync(resolve(root, TIMES_FILE), all.map(([f, s]) => `${s.toFixed(1)}\t${f}\n`).join(''));
const sum = ended.reduce((a, r) => a + r.ms, 0) / 1000;
process.stdout.write(
  `\nslowest test files (of ${ended.length}, ${sum.toFixed(0)} s in all, ${wallS.toFixed(0)} s of wall with ${jobs} at once; every file in ${TIMES_FILE}):\n` +
    ended
      .slice(0, 10)
      .map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}\n`)
      .join(''),
);
process.stdout.write(`\ntests: ${counts.pass} passed, ${failed} failed\n`);
process.exit(failedFiles.length > 0 ? 1 : 0);
