// System calls a process makes while some work runs, from `strace -c -f` attached to it: exact
// counts, not timings, so they do not depend on how busy the machine is. Needs strace.
import { spawn } from 'node:child_process';

/**
 * Calls per unit of work, by system call (`total` included), while `work` runs `n` units; `trace`
 * limits strace to those calls (`-e trace=…`).
 */
export async function straceCounts(
  pid: number,
  n: number,
  work: () => Promise<void>,
  trace?: readonly string[],
): Promise<Map<string, number>> {
  const st = spawn('strace', ['-f', '-c', ...(trace ? ['-e', `trace=${trace.join(',')}`] : []), '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((ok, fail) => {
    st.once('error', fail); // strace not installed, or not allowed to attach
    st.once('exit', () => ok());
  });
  let out = '';
  st.stderr.on('data', (b: Buffer) => (out += b.toString()));
  // strace needs a moment to attach before the work starts.
  await Promise.race([new Promise((r) => setTimeout(r, 1000)), exited]);
  await work();
  st.kill('SIGINT');
  await exited;
  // strace -c columns: % time, seconds, usecs/call, calls, [errors,] syscall.
  const counts = new Map<string, number>();
  for (const f of out.split('\n').map((l) => l.trim().split(/\s+/)))
    if (f.length >= 5 && /^\d+$/.test(f[3] ?? '')) counts.set(f[f.length - 1], Number(f[3]) / n);
  return counts;
}
