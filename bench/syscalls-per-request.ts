// `node bench/syscalls-per-request.ts [CHECKOUT]`: write(2)/writev(2)/sendmsg(2) calls polygate makes
// per non-streamed request, relayed and translated, counted by `strace -c` attached to the gateway
// over a fixed number of requests (issue #28: a relayed answer took one write more than a translated
// one). Exact counts, not timings: the figure does not depend on how busy the machine is. Needs strace.
import { spawn } from 'node:child_process';
import { polygateConfig } from './paths.ts';
import { startMockProcess, startPolygate } from './processes.ts';
import { requestLoop } from './targets.ts';

const dir = process.argv[2];
const N = 2000;
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const gw = await startPolygate(polygateConfig(mock.url), { dir, logToFile: true });
try {
  for (const name of ['E → anthropic (pass-through)', 'E → openai-chat (translate)']) {
    const { run, close } = requestLoop(name, gw.url, 4);
    await run(500);
    const st = spawn('strace', ['-f', '-c', '-e', 'trace=write,writev,sendmsg', '-p', String(gw.pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let out = '';
    st.stderr.on('data', (b: Buffer) => (out += b.toString()));
    await new Promise((r) => setTimeout(r, 1000));
    await run(N);
    st.kill('SIGINT');
    await new Promise((r) => st.once('exit', r));
    // strace -c columns: % time, seconds, usecs/call, calls, errors, syscall.
    const counts = out
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => /^(write|writev|sendmsg|total)$/.test(f[f.length - 1] ?? ''))
      .map((f) => `${f[f.length - 1]} ${(Number(f[3]) / N).toFixed(2)}`);
    process.stdout.write(`${name}: per request ${counts.join(', ')}\n`);
    await close();
  }
} finally {
  await gw.stop();
  await mock.stop();
}
