// `npm run bench`: polygate, the peers (Portkey, claude-code-router), the framework floor and a
// bare pass-through hop side by side against one mock upstream, non-streaming and streaming, at
// 1, 32 and 256 connections; then the soak. Writes bench/results/latest.{md,json} and prints the
// report, whose first section says which of issue #17's goals are met (bench/goals.ts).
// Performance is never asserted.
//
// Environment: BENCH_QUICK=1 (~2 min smoke), BENCH_DURATION / BENCH_WARMUP (s per measurement),
// BENCH_REPEATS, BENCH_CONNECTIONS=1,32,256, BENCH_MODES=json,stream, BENCH_PATHS=substring,…, BENCH_PEER=0 (no Portkey),
// BENCH_CCR=0 (no claude-code-router), BENCH_OPERATOR=0 (polygate's bare config of earlier runs, paths.ts),
// BENCH_SOAK=0, BENCH_RETRY_BUDGET (s of re-measuring allowed when other work disturbs a
// measurement; 120, 0 in quick mode), BENCH_LOG_LEVEL (polygate's log level; default: the config's),
// BENCH_POLYGATE_DIR (the checkout to measure) and BENCH_POLYGATE_LABEL (how the report names it),
// BENCH_BEFORE (an older checkout measured beside it on every polygate path, A/B: bench/ab-compare.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { abCompare } from './ab-compare.ts';
import { runAutocannon } from './load-autocannon.ts';
import { runStreams } from './load-streams.ts';
import type { MockStats } from './mock-upstream.ts';
import { benchPaths, baselineFormat, operator, operatorFeatures, polygateConfig } from './paths.ts';
import { CCR_MODEL, CCR_VERSION, installCcr, startCcr } from './peer-ccr.ts';
import { HONO_NODE_SERVER_VERSION, installPortkey, PORTKEY_VERSION, startPortkey } from './peer-portkey.ts';
import {
  cpuSecondsOf,
  beforeDir,
  GATEWAY_CORE,
  LOAD_CORE,
  machineBusySeconds,
  node24,
  pinning,
  pinSelf,
  polygateDir,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
  watchOtherCpu,
  type Proc,
} from './processes.ts';
import { sleep } from './stats.ts';
import { aggregate, renderReport, type Measured, type Repeat, type Report } from './render-report.ts';
import { runSoak } from './soak.ts';
import { chunkCpuDefaults, runChunkCpu } from './chunk-cpu.ts';
import { allocPerRequest } from './alloc-per-request.ts';
import { directTarget, frameworkFloorTarget, peerTarget, polygateTarget, probe, type Target } from './targets.ts';
import type { WireFormat } from './wire-requests.ts';

const env = process.env;
const quick = env.BENCH_QUICK === '1';
const durationS = Number(env.BENCH_DURATION ?? (quick ? 1 : 2));
const warmupS = Number(env.BENCH_WARMUP ?? (quick ? 0.25 : 1));
const repeats = Number(env.BENCH_REPEATS ?? (quick ? 1 : 3));
const connections = (env.BENCH_CONNECTIONS ?? '1,32,256').split(',').map(Number);
const pathFilter = env.BENCH_PATHS?.split(',').map((s) => s.trim().toLowerCase());
const modes = (env.BENCH_MODES ?? 'json,stream')
  .split(',')
  .filter((m): m is 'json' | 'stream' => m === 'json' || m === 'stream');
/** Text chunks per stream in the throughput cells (zero interval: the gateway's cost, not the model's pace). */
const STREAM_CHUNKS = 20;
/**
 * On a shared machine a measurement during which other work used more than this many cores is
 * taken again (up to twice, within BENCH_RETRY_BUDGET seconds in all); the least disturbed
 * attempt is kept.
 */
const QUIET_CORES = 0.1;
let retryBudgetS = Number(env.BENCH_RETRY_BUDGET ?? (quick ? 0 : 120));
const disturbance = { retried: 0, keptDisturbed: 0 };

const log = (s: string): void => void process.stderr.write(`${s}\n`);

/** Which polygate a checkout holds: its commit, and whether the tree had uncommitted changes. */
function polygateVersion(dir: string): string {
  if (env.BENCH_POLYGATE_LABEL && dir === polygateDir) return env.BENCH_POLYGATE_LABEL;
  try {
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'adapters') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted changes in src/ or adapters/' : ''}${dir === polygateDir ? '' : ` (${dir})`}`;
  } catch {
    return dir === repoRoot ? 'this tree (not a git checkout)' : dir;
  }
}

async function measure(
  t: Target,
  mode: 'json' | 'stream',
  conns: number,
  seconds: number,
  mockUrl: string,
): Promise<Repeat> {
  const req = t.request(mode === 'stream');
  await fetch(`${mockUrl}/__stats`).then((r) => r.arrayBuffer());
  const cpu0 = t.pid === undefined ? Number.NaN : cpuSecondsOf(t.pid);
  const r =
    mode === 'json'
      ? await runAutocannon(t.baseUrl, req, conns, seconds)
      : await runStreams(t.baseUrl, req, conns, seconds, t.endMarker);
  // Requests the gateway still had queued when the load stopped reach the mock now, not during the next target.
  await sleep(100);
  const gatewayCpuMsPerRequest =
    t.pid === undefined || r.count === 0 ? Number.NaN : ((cpuSecondsOf(t.pid) - cpu0) * 1000) / r.count;
  // New connections the mock saw per request: ~0 when the hop keeps its upstream connections alive.
  const m = (await (await fetch(`${mockUrl}/__stats`)).json()) as MockStats;
  return {
    ...r,
    upstreamConnsPerRequest: m.requests > 0 ? m.connections / m.requests : Number.NaN,
    otherCores: 0,
    gatewayCpuMsPerRequest,
  };
}

/** `measure`, taken again when other work on the machine disturbed it (QUIET_CORES). */
async function measureQuietly(
  t: Target,
  mode: 'json' | 'stream',
  conns: number,
  mockUrl: string,
  pids: number[],
): Promise<Repeat> {
  let best: Repeat | undefined;
  for (let attempt = 0; ; attempt++) {
    const other = watchOtherCpu(pids);
    const started = performance.now();
    const r = await measure(t, mode, conns, durationS, mockUrl);
    r.otherCores = other() / ((performance.now() - started) / 1000);
    if (!best || r.otherCores < best.otherCores) best = r;
    if (best.otherCores <= QUIET_CORES || attempt >= 2 || retryBudgetS <= 0) break;
    retryBudgetS -= durationS;
    disturbance.retried++;
  }
  if (best.otherCores > QUIET_CORES) disturbance.keptDisturbed++;
  return best;
}

async function main(): Promise<void> {
  const started = Date.now();
  // Read before the run: the tree may be edited while it measures the processes started from it.
  const versions = {
    polygate: polygateVersion(polygateDir),
    ...(beforeDir ? { polygateBefore: polygateVersion(beforeDir) } : {}),
  };
  pinSelf(LOAD_CORE);
  const procs: Proc[] = [];
  const stopAll = async (): Promise<void> => void (await Promise.all(procs.map((p) => p.stop())));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    if (env.BENCH_PEER !== '0') installPortkey();
    if (env.BENCH_CCR !== '0') installCcr();
    // The machine may be shared: CPU time spent by anything else during the run is reported.
    const busyAtStart = machineBusySeconds();
    const selfAtStart = process.cpuUsage();
    const loadAtStart = loadavg()[0];
    const mock = await startMockProcess({ chunks: STREAM_CHUNKS, intervalMs: 0 });
    procs.push(mock);
    const polygate = await startPolygate(polygateConfig(mock.url), { logToFile: operator });
    procs.push(polygate);
    // A/B: the older checkout with the same config on the same core; only one of them is under load at a time.
    const before = beforeDir
      ? await startPolygate(polygateConfig(mock.url), {
          dir: beforeDir,
          name: 'polygate (before)',
          logToFile: operator,
        })
      : undefined;
    if (before) procs.push(before);
    const floor = await startNodeProcess('floor', join(repoRoot, 'bench/floor-proxy.ts'), {
      core: GATEWAY_CORE,
      args: (port) => ['--port', String(port), '--target', mock.url],
    });
    procs.push(floor);
    const framework = await startNodeProcess('framework floor', join(repoRoot, 'bench/framework-floor.ts'), {
      core: GATEWAY_CORE,
      args: (port) => ['--port', String(port), '--target', mock.url],
    });
    procs.push(framework);
    // The same floor with http-proxy over node:http as its upstream client, the relay's package: the pass-through
    // goal's reference for what the card's relay package costs (issue #28; BENCH_PROXY_FLOOR=0 leaves it out).
    const proxyFramework =
      env.BENCH_PROXY_FLOOR === '0'
        ? undefined
        : await startNodeProcess('framework floor (http-proxy)', join(repoRoot, 'bench/framework-floor.ts'), {
            core: GATEWAY_CORE,
            args: (port) => ['--port', String(port), '--target', mock.url, '--client', 'http-proxy'],
          });
    if (proxyFramework) procs.push(proxyFramework);

    const paths = benchPaths.filter((p) => !pathFilter || pathFilter.some((f) => p.name.toLowerCase().includes(f)));
    // Each path's before target right after its after target: the pair is measured back to back.
    const candidates: Target[] = paths.flatMap((p) => [
      polygateTarget(p, polygate.url, 'polygate', polygate.pid),
      ...(before ? [polygateTarget(p, before.url, 'polygate-before', before.pid)] : []),
    ]);
    if (env.BENCH_PEER !== '0') {
      const peer = await startPortkey(mock.url);
      procs.push(peer.proc);
      candidates.push(peerTarget('portkey', 'chat', 'openai-chat', peer.proc.url, 'gpt-bench', peer.headers));
    }
    if (env.BENCH_CCR !== '0') {
      const ccr = await startCcr(mock.url);
      procs.push(ccr);
      candidates.push(peerTarget('ccr', 'messages', 'openai-chat', ccr.url, CCR_MODEL));
    }
    // The framework floor on both same-format paths, so Chat-in and Messages-in paths each have a floor of their own format.
    candidates.push(frameworkFloorTarget('chat', framework.url), frameworkFloorTarget('messages', framework.url));
    if (proxyFramework)
      candidates.push(
        frameworkFloorTarget('chat', proxyFramework.url, 'framework-http-proxy'),
        frameworkFloorTarget('messages', proxyFramework.url, 'framework-http-proxy'),
      );
    candidates.push(peerTarget('floor', 'chat', 'openai-chat', floor.url, 'gpt-bench'));

    const skipped: Report['skipped'] = [];
    const served: Target[] = [];
    for (const t of candidates) {
      const why = await probe(t);
      if (why) skipped.push({ id: t.id, reason: why });
      else served.push(t);
    }
    const formats = new Set<WireFormat>(
      served.filter((t) => t.via === 'polygate').map((t) => baselineFormat(paths.find((p) => p.name === t.path)!)),
    );
    if (served.some((t) => t.via !== 'polygate')) formats.add('chat');
    const targets = [...[...formats].map((f) => directTarget(f, mock.url)), ...served];
    for (const t of skipped) log(`not measured: ${t.id}: ${t.reason}`);

    const measured: Measured[] = [];
    for (const mode of modes) {
      for (const [level, conns] of connections.entries()) {
        log(`${mode} · ${conns} connection(s): warm-up`);
        // The JIT warms once per mode; later load levels only need their connections opened.
        for (const t of targets)
          await measure(t, mode, conns, level === 0 ? warmupS : Math.min(warmupS, 0.5), mock.url);
        const cell = targets.map((t) => ({ target: t, mode, connections: conns, repeats: [] as Repeat[] }));
        // Repeats interleave the targets, so a slow moment of the machine hits all of them alike.
        // Every other repeat runs them in reverse, so neither of two neighbours always goes first.
        for (let r = 0; r < repeats; r++) {
          for (const c of r % 2 === 0 ? cell : [...cell].reverse()) {
            const m = await measureQuietly(
              c.target,
              mode,
              conns,
              mock.url,
              procs.map((p) => p.pid),
            );
            c.repeats.push(m);
            log(
              `  ${mode} ${conns}c r${r + 1} ${c.target.id}${m.otherCores > QUIET_CORES ? ` (disturbed: other work used ${m.otherCores.toFixed(2)} cores)` : ''}`,
            );
          }
        }
        measured.push(...cell);
      }
    }
    const ours =
      procs.reduce((n, p) => n + cpuSecondsOf(p.pid), 0) +
      (process.cpuUsage(selfAtStart).user + process.cpuUsage(selfAtStart).system) / 1e6;
    const otherCpuSeconds = Math.max(0, machineBusySeconds() - busyAtStart - ours);
    await stopAll();
    procs.length = 0;
    // The request log and the ledger's store can reach hundreds of MB: counted, then deleted (BENCH_GATEWAY_LOG is kept).
    const accessLogLines = polygate.logFile
      ? Number(execFileSync('wc', ['-l', polygate.logFile], { encoding: 'utf8' }).split(' ')[0])
      : 0;
    for (const g of [polygate, before]) if (g) rmSync(g.workDir, { recursive: true, force: true });

    const soak = env.BENCH_SOAK === '0' ? undefined : await runSoak(quick ? { chunks: 50, rampStepMs: 5 } : {});
    // ~1 min (quick: ~25 s): CPU per chunk of a translated and a relayed stream beside the framework floor's.
    const chunkOptions = { ...chunkCpuDefaults, ...(quick ? { rounds: 2, seconds: 1 } : { rounds: 3, seconds: 2 }) };
    const chunkCpu =
      env.BENCH_CHUNK_CPU === '0' ? undefined : { options: chunkOptions, rows: await runChunkCpu(chunkOptions) };
    // ~1 min: bytes allocated per request (issue #28's goal 4), a count the machine's load does not move.
    const alloc = env.BENCH_ALLOC === '0' ? undefined : await allocPerRequest();
    const report: Report = {
      meta: {
        date: new Date().toISOString(),
        command: `${Object.entries(env)
          .filter(([k]) => k.startsWith('BENCH_') && k !== 'BENCH_POLYGATE_LABEL')
          .map(([k, v]) => `${k}=${v} `)
          .join('')}npm run bench`,
        cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
        memoryGb: Math.round(totalmem() / 2 ** 30),
        kernel: release(),
        node: execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim(),
        ...versions,
        autocannon: (
          JSON.parse(readFileSync(join(repoRoot, 'node_modules/autocannon/package.json'), 'utf8')) as {
            version: string;
          }
        ).version,
        portkey:
          env.BENCH_PEER === '0'
            ? 'not run'
            : `${PORTKEY_VERSION} (with @hono/node-server ${HONO_NODE_SERVER_VERSION})`,
        ccr: env.BENCH_CCR === '0' ? 'not run' : CCR_VERSION,
        operatorFeatures,
        accessLog: polygate.logFile ? `${polygate.logFile} (${accessLogLines} lines)` : '/dev/null',
        pinning: `${pinning}: gateways on core ${GATEWAY_CORE}; mock upstream and load on core ${LOAD_CORE}`,
        durationS,
        warmupS: `${warmupS} s at the first load level of each mode, ${Math.min(warmupS, 0.5)} s at the others`,
        repeats,
        streamChunks: STREAM_CHUNKS,
        wallMinutes: 0,
        loadAtStart: Math.round(loadAtStart * 100) / 100,
        otherCpuSeconds: Math.round(otherCpuSeconds),
        retried: disturbance.retried,
        keptDisturbed: disturbance.keptDisturbed,
        measurements: measured.reduce((n, m) => n + m.repeats.length, 0),
      },
      ...aggregate(measured),
      skipped,
      soak,
      chunkCpu,
      alloc,
      ...(beforeDir ? { ab: abCompare(measured) } : {}),
    };
    report.meta.wallMinutes = Math.round((Date.now() - started) / 6000) / 10;
    const dir = join(repoRoot, 'bench/results');
    mkdirSync(dir, { recursive: true });
    const md = renderReport(report);
    writeFileSync(join(dir, 'latest.md'), md);
    writeFileSync(join(dir, 'latest.json'), JSON.stringify(report, null, 2));
    process.stdout.write(md);
    log(`wrote bench/results/latest.md and latest.json in ${report.meta.wallMinutes} min`);
  } finally {
    await stopAll();
  }
}

await main();
