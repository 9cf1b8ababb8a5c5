// Runs the whole tap suite and closes with one plain line, `N passed, N failed`, that any CI can
// read; the exit code is tap's own.
import { spawn } from 'node:child_process';

const child = spawn('tap', process.argv.slice(2), { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
let tail = '';
child.stdout.on('data', (b: Buffer) => {
  process.stdout.write(b);
  tail = (tail + b.toString()).slice(-4096);
});
child.on('exit', (code) => {
  const m = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/.exec(tail);
  if (m) {
    const passed = Number(m[2] ?? 0);
    const failed = Number(m[3] ?? 0) + (code !== 0 && Number(m[3] ?? 0) === 0 ? 1 : 0);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed\n`);
  }
  process.exit(code ?? 1);
});
