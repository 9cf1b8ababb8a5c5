// The soak: 1,000 concurrent streams of 200 chunks at 20 ms, opened at 500 a second, through the
// framework floor (framework-floor.ts) once and through polygate twice. Reports peak
// RSS, the heap after a forced GC after each round (through the inspector protocol, so src/ stays
// untouched; growth from round to round is a leak), streams slow to start or stalled midway, and the client's chunk
// inter-arrival times beside the mock's own inter-write times: the gateway's added jitter.
//
//   npm run bench:soak    (BENCH_SOAK_STREAMS, BENCH_SOAK_CHUNKS, BENCH_SOAK_INTERVAL_MS, BENCH_SOAK_PATH)
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { streamOnce } from './stream-client.ts';
import { benchPaths, operator, polygateConfig } from './paths.ts';
import {
  cpuSecondsOf,
  freePort,
  GATEWAY_CORE,
  listenOverflows,
  LOAD_CORE,
  memoryOf,
  pinSelf,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
  watchOtherCpu,
  type Proc,
} from './processes.ts';
import { renderSoak } from './render-report.ts';
import { Samples, sleep } from './stats.ts';
import { directTarget, frameworkFloorTarget, polygateTarget, type Target } from './targets.ts';
import type { MockStats } from './mock-upstream.ts';

export type SoakOptions = {
  streams: number;
  chunks: number;
  intervalMs: number;
  rounds: number;
  path: string;
  stallMs: number;
  rampStepMs: number;
};
export type GapStats = { p50: number; p99: number; max: number };
export type SoakRound = {
  /** `direct` (client straight to the mock: the harness's own jitter), `framework floor`, or `polygate N`. */
  label: string;
  completed: number;
  /** Waited more than stallMs for the first byte (queued, not yet served). */
  slowStart: number;
  /** Went quiet for more than stallMs between two chunks, or never finished. */
  stalled: number;
  incomplete: number;
  errors: number;
  /** What the errors were: `status N` or the client's error message, with counts. */
  errorKinds: Record<string, number>;
  wallS: number;
  ttfb: GapStats;
  peakRssMb: number;
  rssAfterMb: number;
  heapAfterMb: number;
  clientGap: GapStats;
  mockGap: GapStats;
  /** CPU used over the round ÷ its wall time: 1.0 = a saturated core. */
  gatewayCpu: number;
  loadCoreCpu: number;
  /** Connections the kernel dropped at a full accept queue during the round (each costs a 1 s SYN retry). */
  listenOverflows: number;
  /** Cores' worth of CPU that other work on the machine used during the round. */
  otherCores: number;
};
/** `rounds`: `direct`, `framework floor` (its TTFB is what polygate's is compared with), then `polygate N`. */
export type SoakReport = {
  options: SoakOptions;
  path: string;
  floorPath: string;
  heapBeforeMb: number;
  heapGrowthMb: number;
  rounds: SoakRound[];
};

const env = process.env;
const defaults: SoakOptions = {
  streams: Number(env.BENCH_SOAK_STREAMS ?? 1000),
  chunks: Number(env.BENCH_SOAK_CHUNKS ?? 200),
  intervalMs: Number(env.BENCH_SOAK_INTERVAL_MS ?? 20),
  rounds: 2,
  path: env.BENCH_SOAK_PATH ?? 'openai-chat (translate)',
  // Waiting longer than this for the first byte is a slow start; between two chunks, a stall.
  stallMs: 1000,
  // 1,000 streams opened over 2 s; each lasts 4 s, so all are open at once for 2 s.
  rampStepMs: 20,
};
const MB = 2 ** 20;

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function openInspector(
  port: number,
): Promise<{ call(method: string): Promise<Record<string, unknown>>; close(): void }> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(list[0].webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    ws.onopen = ok;
    ws.onerror = fail;
  });
  let id = 0;
  const pending = new Map<number, (r: Record<string, unknown>) => void>();
  ws.onmessage = (e: MessageEvent) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: Record<string, unknown> };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result ?? {});
  };
  return {
    call: (method) =>
      new Promise((ok) => {
        pending.set(++id, ok);
        ws.send(JSON.stringify({ id, method }));
      }),
    close: () => ws.close(),
  };
}

const statsOf = (s: Samples): GapStats => {
  const [p50, p99] = s.percentiles(50, 99);
  return { p50, p99, max: s.max() };
};

type RoundResult = Omit<SoakRound, 'label' | 'heapAfterMb' | 'rssAfterMb'>;

/** One round of `streams` concurrent streams at `target`; `gw` is the gateway in between, if any. */
async function round(
  o: SoakOptions,
  target: Target,
  gw: Proc | undefined,
  mock: Proc,
  streams: number,
): Promise<RoundResult> {
  const req = target.request(true);
  const gaps = new Samples();
  const ttfb = new Samples();
  let completed = 0;
  let stalled = 0;
  let slowStart = 0;
  let incomplete = 0;
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, gw ? (memoryOf(gw.pid)?.rss ?? 0) : 0)), 100);
  const cpu0 = { gw: gw ? cpuSecondsOf(gw.pid) : 0, mock: cpuSecondsOf(mock.pid), self: process.cpuUsage() };
  const overflows0 = listenOverflows();
  const other = watchOtherCpu(gw ? [gw.pid, mock.pid] : [mock.pid]);
  const expectedMs = o.chunks * o.intervalMs;

  const one = async (): Promise<void> => {
    const ac = new AbortController();
    let wasStalled = false;
    let wasSlow = false;
    const deadline = setTimeout(() => {
      wasStalled = true;
      ac.abort();
    }, expectedMs + 10_000);
    const t0 = performance.now();
    let last = -1;
    // One connection per stream, as a thousand separate users would open (a shared pool may
    // queue a new stream behind a running one on a connection that is still being set up).
    const client = new Client(target.baseUrl, { pipelining: 1 });
    const r = await streamOnce(client, req, target.endMarker, {
      signal: ac.signal,
      onChunk: (now) => {
        // Chunks delivered by the same socket read arrive together: one arrival, not a 0 ms gap.
        if (last >= 0 && now - last < 0.05) return;
        if (last < 0 && now - t0 > o.stallMs) wasSlow = true;
        if (last >= 0 && now - last > o.stallMs) wasStalled = true;
        if (last >= 0) gaps.push(now - last);
        last = now;
      },
    });
    clearTimeout(deadline);
    void client.destroy();
    if (r.ttfbMs >= 0) ttfb.push(r.ttfbMs);
    if (wasStalled) stalled++;
    if (wasSlow) slowStart++;
    if (r.whole) completed++;
    else if (r.status !== 200 || (r.error && !wasStalled)) {
      errors++;
      const kind =
        r.status !== 200 && r.status !== 0 ? `status ${r.status}` : (r.error?.message ?? `status ${r.status}`);
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    } else if (!wasStalled) incomplete++;
  };

  const started = performance.now();
  const all: Promise<void>[] = [];
  // Ramped (10 streams every o.rampStepMs): a thousand SYNs at once overflow Node's listen
  // backlog (511) whenever the event loop is busy, and a dropped SYN is retried after a second,
  // which would measure the kernel's retry timer, not the gateway.
  for (let i = 0; i < streams; i++) {
    all.push(one());
    if (i % 10 === 9) await sleep(o.rampStepMs);
  }
  await Promise.all(all);
  const wallS = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const otherCores = other() / wallS;
  const self = process.cpuUsage(cpu0.self);
  const gatewayCpu = gw ? (cpuSecondsOf(gw.pid) - cpu0.gw) / wallS : Number.NaN;
  const loadCoreCpu = (cpuSecondsOf(mock.pid) - cpu0.mock + (self.user + self.system) / 1e6) / wallS;
  const m = (await (await fetch(`${mock.url}/__stats`)).json()) as MockStats;
  return {
    completed,
    slowStart,
    stalled,
    incomplete,
    errors,
    errorKinds,
    wallS,
    ttfb: statsOf(ttfb),
    peakRssMb: gw ? peakRss / MB : Number.NaN,
    clientGap: statsOf(gaps),
    mockGap: m.gaps,
    gatewayCpu,
    loadCoreCpu,
    listenOverflows: listenOverflows() - overflows0,
    otherCores,
  };
}

export async function runSoak(partial: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const o = { ...defaults, ...partial };
  const path = benchPaths.find((p) => p.name.includes(o.path));
  if (!path) throw new Error(`no bench path matches '${o.path}'`);
  process.stderr.write(`soak: ${o.streams} streams × ${o.chunks} chunks @ ${o.intervalMs} ms through ${path.name}\n`);
  const mock = await startMockProcess({ chunks: o.chunks, intervalMs: o.intervalMs });
  const inspectPort = await freePort();
  // BENCH_SOAK_PROBE=FILE: each request's start phases and the event loop's delay, for bench/stream-start-report.ts.
  const probe = env.BENCH_SOAK_PROBE;
  const gw = await startPolygate(polygateConfig(mock.url), {
    nodeArgs: [
      `--inspect=127.0.0.1:${inspectPort}`,
      ...(probe ? [`--import=${join(repoRoot, 'bench/stream-start-probe.ts')}`] : []),
    ],
    env: probe ? { PROBE_FILE: probe } : {},
    logToFile: operator,
  });
  const mark = (label: string, from: number): void => {
    if (probe) appendFileSync(probe, `${JSON.stringify({ round: label, from, to: Date.now() })}\n`);
  };
  const framework = await startNodeProcess('framework floor', join(repoRoot, 'bench/framework-floor.ts'), {
    core: GATEWAY_CORE,
    args: (port) => ['--port', String(port), '--target', mock.url],
  });
  const floor = frameworkFloorTarget(path.inbound, framework.url);
  const inspector = await openInspector(inspectPort);
  const heapAfterGc = async (): Promise<number> => {
    await inspector.call('HeapProfiler.collectGarbage');
    return Number((await inspector.call('Runtime.getHeapUsage')).usedSize) / MB;
  };
  const through = polygateTarget(path, gw.url);
  const report = (label: string, r: RoundResult): void =>
    void process.stderr.write(
      `soak ${label}: ${r.completed}/${o.streams} completed, ${r.slowStart} slow to start, ${r.stalled} stalled\n`,
    );
  let one: Awaited<ReturnType<typeof startPolygate>> | undefined;
  try {
    // The same streams straight at the mock first: what the harness itself can hold on its core.
    const direct = {
      label: 'direct',
      ...(await round(o, directTarget(path.inbound, mock.url), undefined, mock, o.streams)),
      heapAfterMb: Number.NaN,
      rssAfterMb: Number.NaN,
    };
    report('direct', direct);
    // The same streams through the framework floor (warmed up the same way): the wait any Koa gateway on this stack adds.
    await round(o, floor, framework, mock, Math.min(o.streams, 50));
    const floorRound = {
      label: 'framework floor',
      ...(await round(o, floor, framework, mock, o.streams)),
      heapAfterMb: Number.NaN,
      rssAfterMb: (memoryOf(framework.pid)?.rss ?? 0) / MB,
    };
    report('framework floor', floorRound);
    // A small first round loads and optimizes the code, so the measured rounds compare like with like.
    await round(o, through, gw, mock, Math.min(o.streams, 50));
    const heapBeforeMb = await heapAfterGc();
    const rounds: SoakRound[] = [];
    // BENCH_SOAK_ONE_QUEUE=1: each round also through the floor again and a polygate listening with one
    // accept queue (listen.accept_queues: 1, as before issue #28's session 9), in the same minute.
    const extra: SoakRound[] = [];
    one = env.BENCH_SOAK_ONE_QUEUE
      ? await startPolygate(polygateConfig(mock.url, { accept_queues: 1 }), {
          name: 'polygate (1 accept queue)',
          logToFile: operator,
        })
      : undefined;
    if (one) await round(o, polygateTarget(path, one.url), one, mock, Math.min(o.streams, 50));
    for (let i = 0; i < o.rounds; i++) {
      if (one) {
        const f = await round(o, floor, framework, mock, o.streams);
        extra.push({ label: `framework floor ${i + 1}`, ...f, heapAfterMb: Number.NaN, rssAfterMb: Number.NaN });
        const r1 = await round(o, polygateTarget(path, one.url), one, mock, o.streams);
        extra.push({
          label: `polygate ${i + 1}, 1 accept queue`,
          ...r1,
          heapAfterMb: Number.NaN,
          rssAfterMb: Number.NaN,
        });
        report(`polygate ${i + 1}, 1 accept queue`, r1);
      }
      const from = Date.now();
      const r = await round(o, through, gw, mock, o.streams);
      mark(`polygate ${i + 1}`, from);
      await sleep(500);
      rounds.push({
        label: `polygate ${i + 1}`,
        ...r,
        heapAfterMb: await heapAfterGc(),
        rssAfterMb: (memoryOf(gw.pid)?.rss ?? 0) / MB,
      });
      report(`polygate ${i + 1}`, r);
    }
    return {
      options: o,
      path: path.name,
      floorPath: floor.path,
      heapBeforeMb,
      heapGrowthMb: rounds[rounds.length - 1].heapAfterMb - rounds[0].heapAfterMb,
      rounds: [direct, floorRound, ...rounds, ...extra],
    };
  } finally {
    await one?.stop();
    if (one) rmSync(one.workDir, { recursive: true, force: true });
    inspector.close();
    await Promise.all([gw.stop(), framework.stop(), mock.stop()]);
    rmSync(gw.workDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  pinSelf(LOAD_CORE);
  process.stdout.write(`${renderSoak(await runSoak()).join('\n')}\n`);
}
