// `node bench/syscalls-per-stream.ts [CHECKOUT]`: system calls polygate makes per translated stream
// (E → openai-chat) of SYSCALLS_CHUNKS (1) chunk(s) SYSCALLS_INTERVAL_MS (0) apart, counted by `strace -c -f` attached to the
// gateway over SYSCALLS_STREAMS (2,000) streams, 4 at a time (issue #28: what a stream start costs
// beside its CPU). Exact counts, not timings. Needs strace.
import { spawn } from 'node:child_process';
import { Pool } from 'undici';
import { benchPaths, polygateConfig } from './paths.ts';
import { startMockProcess, startPolygate } from './processes.ts';
import { polygateTarget } from './targets.ts';

const dir = process.argv[2];
const N = Number(process.env.SYSCALLS_STREAMS ?? 2000);
const mock = await startMockProcess({
  chunks: Number(process.env.SYSCALLS_CHUNKS ?? 1),
  intervalMs: Number(process.env.SYSCALLS_INTERVAL_MS ?? 0),
});
const gw = await startPolygate(polygateConfig(mock.url), { dir, logToFile: true });
const t = polygateTarget(
  benchPaths.find((p) => p.name === 'E → openai-chat (translate)')!,
  gw.url,
);
const req = t.request(true);
const pool = new Pool(t.baseUrl, { connections: 4 });
const run = async (n: number): Promise<void> => {
  let left = n;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const r = await pool.request({ path: req.path, method: 'POST', headers: req.headers, body: req.body });
      const text = await r.body.text();
      if (!text.includes(t.endMarker)) throw new Error(`stream without its end: ${text.slice(-200)}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
};
try {
  await run(500);
  const st = spawn('strace', ['-f', '-c', '-p', String(gw.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  st.stderr.on('data', (b: Buffer) => (out += b.toString()));
  await new Promise((r) => setTimeout(r, 1000));
  await run(N);
  st.kill('SIGINT');
  await new Promise((r) => st.once('exit', r));
  // strace -c columns: % time, seconds, usecs/call, calls, [errors,] syscall.
  const rows = out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 5 && /^\d+$/.test(f[3] ?? ''))
    .map((f) => [f[f.length - 1], Number(f[3]) / N] as const)
    .filter(([, n]) => n >= 0.05);
  process.stdout.write(`per stream: ${rows.map(([s, n]) => `${s} ${n.toFixed(2)}`).join(', ')}\n`);
} finally {
  await pool.close();
  await gw.stop();
  await mock.stop();
}
