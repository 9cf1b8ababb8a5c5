// `node bench/syscalls-per-stream.ts [CHECKOUT]`: system calls polygate makes per translated stream
// (E → openai-chat) of SYSCALLS_CHUNKS (1) chunk(s) SYSCALLS_INTERVAL_MS (0) apart, counted by `strace -c -f` attached to the
// gateway over SYSCALLS_STREAMS (2,000) streams, 4 at a time (issue #28: what a stream start costs
// beside its CPU). Exact counts, not timings. Needs strace.
import { polygateConfig } from './paths.ts';
import { startMockProcess, startPolygate } from './processes.ts';
import { straceCounts } from './strace-counts.ts';
import { requestLoop } from './targets.ts';

const dir = process.argv[2];
const N = Number(process.env.SYSCALLS_STREAMS ?? 2000);
const mock = await startMockProcess({
  chunks: Number(process.env.SYSCALLS_CHUNKS ?? 1),
  intervalMs: Number(process.env.SYSCALLS_INTERVAL_MS ?? 0),
});
const gw = await startPolygate(polygateConfig(mock.url), { dir, logToFile: true });
const { run, close } = requestLoop('E → openai-chat (translate)', gw.url, 4, true);
try {
  await run(500);
  const counts = await straceCounts(gw.pid, N, () => run(N));
  const rows = [...counts].filter(([, n]) => n >= 0.05);
  process.stdout.write(`per stream: ${rows.map(([s, n]) => `${s} ${n.toFixed(2)}`).join(', ')}\n`);
} finally {
  await close();
  await gw.stop();
  await mock.stop();
}
