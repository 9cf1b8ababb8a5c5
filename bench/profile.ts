// `npm run bench:profile`: polygate under load with `node --cpu-prof`, one process per scenario,
// then a summary of each profile (summarize-profile.ts) in bench/results/profiles/summary.md.
// The guide for making the hot path fast: measure (run-bench.ts), profile here, change, measure.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAutocannon } from './load-autocannon.ts';
import { runStreams } from './load-streams.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import {
  GATEWAY_CORE,
  LOAD_CORE,
  pinSelf,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
} from './processes.ts';
import { renderProfile, summarizeProfile } from './summarize-profile.ts';
import { frameworkFloorTarget, polygateTarget } from './targets.ts';

const seconds = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const connections = 32;
/** `floor`: the framework floor with that client (bench/framework-floor.ts), not polygate. */
const scenarios: { name: string; path: string; stream: boolean; floor?: 'undici' | 'http-proxy' }[] = [
  { name: 'messages-to-openai-chat-json', path: 'E → openai-chat (translate)', stream: false },
  { name: 'messages-to-openai-chat-stream', path: 'E → openai-chat (translate)', stream: true },
  { name: 'messages-to-anthropic-passthrough-json', path: 'E → anthropic (pass-through)', stream: false },
  { name: 'chat-to-openai-chat-passthrough-json', path: 'chat → openai-chat (pass-through)', stream: false },
  { name: 'messages-to-echo-json', path: 'E → echo', stream: false },
  { name: 'responses-to-anthropic-json', path: 'D → anthropic (translate)', stream: false },
  { name: 'gemini-to-openai-chat-json', path: 'C → openai-chat (translate)', stream: false },
  { name: 'floor-undici-json', path: 'E → anthropic (pass-through)', stream: false, floor: 'undici' },
  { name: 'floor-http-proxy-json', path: 'E → anthropic (pass-through)', stream: false, floor: 'http-proxy' },
];

// BENCH_PROFILE_ONLY: a substring of the scenario names to run (e.g. "openai-chat-json").
const only = process.env.BENCH_PROFILE_ONLY;

pinSelf(LOAD_CORE);
const dir = join(repoRoot, 'bench/results/profiles');
mkdirSync(dir, { recursive: true });
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const out: string[] = [
  `Profiles of polygate under ${connections} connections for ${seconds} s each after 2 s of warm-up (\`npm run bench:profile\`); only samples taken under load count.`,
  '',
];
try {
  for (const s of scenarios) {
    if (only && !s.name.includes(only)) continue;
    const tmp = join(dir, `.${s.name}`);
    rmSync(tmp, { recursive: true, force: true });
    const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${tmp}`];
    const gw = s.floor
      ? await startNodeProcess(`framework floor (${s.floor})`, join(repoRoot, 'bench/framework-floor.ts'), {
          core: GATEWAY_CORE,
          nodeArgs,
          args: (port) => ['--port', String(port), '--target', mock.url, '--client', s.floor!],
        })
      : await startPolygate(polygateConfig(mock.url), { nodeArgs });
    const t = s.floor
      ? frameworkFloorTarget('messages', gw.url)
      : polygateTarget(
          benchPaths.find((p) => p.name === s.path)!,
          gw.url,
        );
    const req = t.request(s.stream);
    // Warm-up first, so the profile shows optimized code, not the JIT's first passes.
    if (s.stream) await runStreams(gw.url, req, connections, 2, t.endMarker);
    else await runAutocannon(gw.url, req, connections, 2);
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    const r = s.stream
      ? await runStreams(gw.url, req, connections, seconds, t.endMarker)
      : await runAutocannon(gw.url, req, connections, seconds);
    const toUs = Number(process.hrtime.bigint() / 1000n);
    await gw.stop();
    const file = join(dir, `${s.name}.cpuprofile`);
    const written = readdirSync(tmp).find((f) => f.endsWith('.cpuprofile'));
    if (!written) throw new Error(`no profile written for ${s.name}`);
    renameSync(join(tmp, written), file);
    rmSync(tmp, { recursive: true, force: true });
    const rate = 'rps' in r ? `${Math.round(r.rps)} req/s` : `${Math.round(r.sps)} streams/s`;
    out.push(
      `## ${s.name} (${s.floor ? `framework floor, ${s.floor} client` : s.path}, ${s.stream ? 'streaming' : 'non-streaming'}; ${rate} while profiled)`,
      '',
      ...renderProfile(summarizeProfile(file, 20, { fromUs, toUs })),
      '',
    );
    process.stderr.write(`profiled ${s.name}\n`);
  }
} finally {
  await mock.stop();
}
writeFileSync(join(dir, 'summary.md'), out.join('\n'));
process.stdout.write(out.join('\n'));
