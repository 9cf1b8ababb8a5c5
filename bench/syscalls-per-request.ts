// `node bench/syscalls-per-request.ts [CHECKOUT]`: write(2)/writev(2)/sendmsg(2) calls polygate makes
// per non-streamed request, relayed and translated, counted by `strace -c` attached to the gateway
// over SYSCALLS_REQUESTS (2,000) requests (issue #28: a relayed answer took one write more than a translated
// one). Exact counts, not timings: the figure does not depend on how busy the machine is. Needs strace.
import { polygateConfig } from './paths.ts';
import { startMockProcess, startPolygate } from './processes.ts';
import { straceCounts } from './strace-counts.ts';
import { requestLoop } from './targets.ts';

const dir = process.argv[2];
const N = Number(process.env.SYSCALLS_REQUESTS ?? 2000);
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const gw = await startPolygate(polygateConfig(mock.url), { dir, logToFile: true });
try {
  for (const name of ['E → anthropic (pass-through)', 'E → openai-chat (translate)']) {
    const { run, close } = requestLoop(name, gw.url, 4);
    await run(500);
    const counts = [...(await straceCounts(gw.pid, N, () => run(N), ['write', 'writev', 'sendmsg']))].map(
      ([call, n]) => `${call} ${n.toFixed(2)}`,
    );
    process.stdout.write(`${name}: per request ${counts.join(', ')}\n`);
    await close();
  }
} finally {
  await gw.stop();
  await mock.stop();
}
