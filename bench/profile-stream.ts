// `node bench/profile-stream.ts [translate|relay]`: polygate under a paced streaming load (32 streams of
// 200 chunks, a chunk every 2 ms) with --cpu-prof; prints the profile's top frames (issue #28).
// BENCH_PROFILE_CHUNKS=10 profiles short streams instead: what starting a stream costs.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runStreams } from './load-streams.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import { LOAD_CORE, pinSelf, repoRoot, startMockProcess, startPolygate } from './processes.ts';
import { renderProfile, summarizeProfile } from './summarize-profile.ts';
import { polygateTarget } from './targets.ts';

const which = process.argv[2] ?? 'translate';
const path = benchPaths.find(
  (p) => p.name === (which === 'relay' ? 'E → anthropic (pass-through)' : 'E → openai-chat (translate)'),
)!;
pinSelf(LOAD_CORE);
const dir = join(repoRoot, 'bench/results/profiles', `stream-${which}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const mock = await startMockProcess({ chunks: Number(process.env.BENCH_PROFILE_CHUNKS ?? 200), intervalMs: 2 });
try {
  const gw = await startPolygate(polygateConfig(mock.url), {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    logToFile: true,
  });
  const t = polygateTarget(path, gw.url);
  await runStreams(gw.url, t.request(true), 32, 2, t.endMarker);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  await runStreams(gw.url, t.request(true), 32, Number(process.env.BENCH_PROFILE_SECONDS ?? 8), t.endMarker);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  await gw.stop();
  const file = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!,
  );
  process.stdout.write(`${file}\n${renderProfile(summarizeProfile(file, 30, { fromUs, toUs })).join('\n')}\n`);
} finally {
  await mock.stop();
}
