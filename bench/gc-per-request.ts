// `node bench/gc-per-request.ts [CHECKOUT]`: garbage collections per 1,000 non-streamed requests and
// the GC's own pause time per request, per path (polygate under `--trace-gc`, a fixed number of
// requests on GC_CONNECTIONS keep-alive connections after a warm-up). Counts, not wall-clock rates: the figure
// is steady on a busy machine. Why: the relay's profile spent twice translation's share in the GC
// while allocating fewer bytes per request (issue #28).
//   GC_REQUESTS (5000)  GC_WARMUP (2000)  GC_CONNECTIONS (4)
import { readFileSync } from 'node:fs';
import { polygateConfig } from './paths.ts';
import { LOAD_CORE, pinSelf, startMockProcess, startPolygate } from './processes.ts';
import { requestLoop } from './targets.ts';

const dir = process.argv[2];
const N = Number(process.env.GC_REQUESTS ?? 5000);
const warm = Number(process.env.GC_WARMUP ?? 2000);
const connections = Number(process.env.GC_CONNECTIONS ?? 4);
pinSelf(LOAD_CORE);
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const gw = await startPolygate(polygateConfig(mock.url), {
  dir,
  logToFile: true,
  nodeArgs: ['--trace-gc', ...(process.env.GC_NODE_ARGS?.split(' ') ?? [])],
});
// --trace-gc prints on stdout, which is the request log's file here.
const lines = (): string[] =>
  readFileSync(gw.logFile!, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('{'));
try {
  for (const name of [
    'E → openai-chat (translate)',
    'E → anthropic (pass-through)',
    'chat → openai-chat (pass-through)',
  ]) {
    const { run, close } = requestLoop(name, gw.url, connections);
    await run(warm);
    const from = process.env.GC_ALL ? 0 : lines().length;
    await run(N);
    const seen = lines().slice(from);
    const of = (kind: string) => seen.filter((l) => l.includes(kind));
    const ms = (ls: string[]) => ls.reduce((s, l) => s + Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0), 0);
    if (process.env.GC_SHOW) process.stderr.write(`${name}\n${seen.join('\n')}\n`);
    const sc = of('Scavenge');
    const mc = of('Mark-Compact');
    process.stdout.write(
      `${name}: per 1000 requests scavenges ${((sc.length * 1000) / N).toFixed(1)}, mark-compacts ${((mc.length * 1000) / N).toFixed(2)}; GC pause µs per request ${(((ms(sc) + ms(mc)) * 1000) / N).toFixed(1)} (scavenge ${((ms(sc) * 1000) / N).toFixed(1)})\n`,
    );
    await close();
  }
} finally {
  await gw.stop();
  await mock.stop();
}
