// `node bench/json-cpu.ts`: gateway CPU per non-streamed request (requests per CPU-second) at 32
// connections, translated vs pass-through vs the framework floor, the targets alternating every
// round (issue #28: on a shared machine wall-clock req/s measures the scheduler; CPU per request
// does not). JSON_CPU_ROUNDS (5), JSON_CPU_SECONDS (2), JSON_CPU_CONNECTIONS (32), JSON_CPU_SETTLE_MS (500: idle
// time after each run still counted to it), JSON_CPU_ONLY (a substring of the path names to measure, e.g. "translate"; the floor is always measured),
// JSON_CPU_FLOOR_PROXY=1 (the floor with polygate's relay client too: http-proxy over node:http).
// JSON_CPU_EXTRA (more bench/paths.ts path names, comma-separated, e.g. "chat → gemini (translate),D → anthropic (translate)").
// JSON_CPU_TOGETHER=1 (with BENCH_BEFORE): each path's after and before targets are loaded at the
// same time, on the same core, each by its own client, and each one's CPU per request taken over
// the same seconds: whatever else the machine does then hits both alike (session 10: on a machine
// at load 10 the rounds of one target spread 2x and back-to-back pairs flipped from run to run).
import { join } from 'node:path';
import { runAutocannon } from './load-autocannon.ts';
import { benchPaths, polygateConfig } from './paths.ts';
import {
  beforeDir,
  cpuSecondsPrecise,
  GATEWAY_CORE,
  LOAD_CORE,
  pinSelf,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
} from './processes.ts';
import { median } from './stats.ts';
import { frameworkFloorTarget, polygateTarget, type Target } from './targets.ts';

const rounds = Number(process.env.JSON_CPU_ROUNDS ?? 5);
const seconds = Number(process.env.JSON_CPU_SECONDS ?? 2);
const connections = Number(process.env.JSON_CPU_CONNECTIONS ?? 32);
const settleMs = Number(process.env.JSON_CPU_SETTLE_MS ?? 500);

pinSelf(LOAD_CORE);
const mock = await startMockProcess({ chunks: 20, intervalMs: 0 });
const floor = await startNodeProcess('framework floor', join(repoRoot, 'bench/framework-floor.ts'), {
  core: GATEWAY_CORE,
  args: (port) => ['--port', String(port), '--target', mock.url],
});
const gw = await startPolygate(polygateConfig(mock.url), { logToFile: true });
const path = (n: string) => benchPaths.find((p) => p.name === n)!;
type Entry = { name: string; t: Target; pid: number };
const entries: Entry[] = [
  { name: 'framework floor · E → anthropic', t: frameworkFloorTarget('messages', floor.url), pid: floor.pid },
  {
    name: 'polygate · E → openai-chat (translate)',
    t: polygateTarget(path('E → openai-chat (translate)'), gw.url),
    pid: gw.pid,
  },
  {
    name: 'polygate · E → anthropic (pass-through)',
    t: polygateTarget(path('E → anthropic (pass-through)'), gw.url),
    pid: gw.pid,
  },
  {
    name: 'polygate · chat → openai-chat (pass-through)',
    t: polygateTarget(path('chat → openai-chat (pass-through)'), gw.url),
    pid: gw.pid,
  },
];
const extra = (process.env.JSON_CPU_EXTRA ?? '').split(',').filter(Boolean);
for (const n of extra) entries.push({ name: `polygate · ${n}`, t: polygateTarget(path(n), gw.url), pid: gw.pid });
const only = process.env.JSON_CPU_ONLY;
if (only) entries.splice(1, entries.length, ...entries.slice(1).filter((e) => e.name.includes(only)));
// BENCH_BEFORE: an older checkout's polygate beside this one, on the same paths (A/B in pairs).
const before = beforeDir
  ? await startPolygate(polygateConfig(mock.url), { dir: beforeDir, logToFile: true })
  : undefined;
// JSON_CPU_FLOOR_PROXY=1: the framework floor again with its upstream call made through http-proxy
// and a node:http Agent, polygate's relay client (bench/framework-floor.ts --client http-proxy).
const proxyFloor = process.env.JSON_CPU_FLOOR_PROXY
  ? await startNodeProcess('framework floor (http-proxy)', join(repoRoot, 'bench/framework-floor.ts'), {
      core: GATEWAY_CORE,
      args: (port) => ['--port', String(port), '--target', mock.url, '--client', 'http-proxy'],
    })
  : undefined;
if (proxyFloor)
  entries.splice(1, 0, {
    name: 'framework floor, http-proxy client · E → anthropic',
    t: frameworkFloorTarget('messages', proxyFloor.url),
    pid: proxyFloor.pid,
  });
if (before)
  for (const n of [
    'E → openai-chat (translate)',
    'E → anthropic (pass-through)',
    'chat → openai-chat (pass-through)',
    ...extra,
  ])
    if (!only || n.includes(only))
      entries.push({ name: `polygate (before) · ${n}`, t: polygateTarget(path(n), before.url), pid: before.pid });
const us = new Map(entries.map((e) => [e.name, [] as number[]]));
// JSON_CPU_TOGETHER: the floor alone, then each after/before pair at once.
const together = before !== undefined && process.env.JSON_CPU_TOGETHER === '1';
const pairs: Entry[][] = [[entries[0]]];
for (const e of entries)
  if (e.name.startsWith('polygate · ')) {
    const b = entries.find((x) => x.name === e.name.replace('polygate · ', 'polygate (before) · '));
    pairs.push(b ? [e, b] : [e]);
  }
try {
  for (const e of entries) await runAutocannon(e.t.baseUrl, e.t.request(false), connections, 1);
  for (let r = 0; r < rounds; r++) {
    if (together) {
      for (const pair of pairs) {
        const c0 = pair.map((e) => cpuSecondsPrecise(e.pid));
        const res = await Promise.all(
          pair.map((e) => runAutocannon(e.t.baseUrl, e.t.request(false), connections, seconds)),
        );
        pair.forEach((e, i) => us.get(e.name)!.push(((cpuSecondsPrecise(e.pid) - c0[i]) * 1e6) / res[i].count));
      }
      process.stderr.write(`json-cpu: round ${r + 1}/${rounds}\n`);
      continue;
    }
    for (const e of r % 2 === 0 ? entries : [...entries].reverse()) {
      const c0 = cpuSecondsPrecise(e.pid);
      const res = await runAutocannon(e.t.baseUrl, e.t.request(false), connections, seconds);
      // The work a run leaves behind (its garbage collected, the ledger's last flush) is counted to
      // that run: without the wait, a target measured twice in a row (the last of a round and the
      // first of the next, reversed, one) paid its previous run's in its next (session 10: the same
      // checkout in both slots read ~10 % apart, favouring the slot never run back to back).
      await new Promise((ok) => setTimeout(ok, settleMs));
      us.get(e.name)!.push(((cpuSecondsPrecise(e.pid) - c0) * 1e6) / res.count);
    }
    process.stderr.write(`json-cpu: round ${r + 1}/${rounds}\n`);
  }
} finally {
  await Promise.all([gw.stop(), floor.stop(), mock.stop(), before?.stop(), proxyFloor?.stop()]);
}
const floorUs = median(us.get(entries[0].name)!);
process.stdout.write(
  [
    `Gateway CPU per non-streamed request, ${connections} connections, ${rounds} rounds of ${seconds} s alternating (\`node bench/json-cpu.ts\`)`,
    '',
    '| target | µs CPU / request (median) | requests per CPU-second | ÷ floor (req per CPU-s) | each round |',
    '|---|---:|---:|---:|---|',
    ...entries.map((e) => {
      const m = median(us.get(e.name)!);
      return `| ${e.name} | ${m.toFixed(0)} | ${Math.round(1e6 / m)} | ${(floorUs / m).toFixed(2)} | ${us
        .get(e.name)!
        .map((x) => x.toFixed(0))
        .join(' ')} |`;
    }),
    '',
    // Each path's after ÷ before, round by round (the pairs measured back to back, or at once).
    ...entries
      .filter((e) => e.name.startsWith('polygate · '))
      .flatMap((e) => {
        const b = us.get(e.name.replace('polygate · ', 'polygate (before) · '));
        if (!b) return [];
        const ratios = us.get(e.name)!.map((x, i) => x / b[i]);
        const lower = ratios.filter((x) => x < 1).length;
        return [
          `${e.name}: after ÷ before per round ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(3)}, ${lower} of ${ratios.length} lower${together ? ', measured at once' : ''})`,
        ];
      }),
    '',
  ].join('\n'),
);
