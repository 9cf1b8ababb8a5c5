// The soak: 1,000 concurrent streams of 200 chunks at 20 ms through polygate, twice. Reports peak
// RSS, the heap after a forced GC after each round (through the inspector protocol, so src/ stays
// untouched; growth from round to round is a leak), streams that stalled, and the client's chunk
// inter-arrival times beside the mock's own inter-write times: the gateway's added jitter.
//
//   npm run bench:soak    (BENCH_SOAK_STREAMS, BENCH_SOAK_CHUNKS, BENCH_SOAK_INTERVAL_MS, BENCH_SOAK_PATH)
import { Pool } from 'undici';
import { benchPaths, polygateConfig } from './paths.ts';
import { freePort, LOAD_CORE, memoryOf, pinSelf, startMockProcess, startPolygate, type Proc } from './processes.ts';
import { renderSoak } from './render-report.ts';
import { Samples, sleep } from './stats.ts';
import { polygateTarget } from './targets.ts';
import type { MockStats } from './mock-upstream.ts';

export type SoakOptions = { streams: number; chunks: number; intervalMs: number; rounds: number; path: string; stallMs: number };
export type GapStats = { p50: number; p99: number; max: number };
export type SoakRound = {
  completed: number;
  stalled: number;
  incomplete: number;
  errors: number;
  wallS: number;
  ttfb: GapStats;
  peakRssMb: number;
  rssAfterMb: number;
  heapAfterMb: number;
  clientGap: GapStats;
  mockGap: GapStats;
};
export type SoakReport = { options: SoakOptions; path: string; heapBeforeMb: number; heapGrowthMb: number; rounds: SoakRound[] };

const env = process.env;
const defaults: SoakOptions = {
  streams: Number(env.BENCH_SOAK_STREAMS ?? 1000),
  chunks: Number(env.BENCH_SOAK_CHUNKS ?? 200),
  intervalMs: Number(env.BENCH_SOAK_INTERVAL_MS ?? 20),
  rounds: 2,
  path: env.BENCH_SOAK_PATH ?? 'openai-chat (translate)',
  // A stream that waits longer than this for its first byte or between two chunks has stalled.
  stallMs: 1000,
};
const MB = 2 ** 20;

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function openInspector(port: number): Promise<{ call(method: string): Promise<Record<string, unknown>>; close(): void }> {
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

async function round(o: SoakOptions, gw: Proc, mock: Proc, streams: number): Promise<Omit<SoakRound, 'heapAfterMb' | 'rssAfterMb'>> {
  const target = polygateTarget(benchPaths.find((p) => p.name.includes(o.path))!, gw.url);
  const req = target.request(true);
  const pool = new Pool(gw.url, { connections: streams, pipelining: 1, keepAliveTimeout: 60_000 });
  const gaps = new Samples();
  const ttfb = new Samples();
  let completed = 0;
  let stalled = 0;
  let incomplete = 0;
  let errors = 0;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, memoryOf(gw.pid)?.rss ?? 0)), 100);
  const expectedMs = o.chunks * o.intervalMs;

  const one = async (): Promise<void> => {
    const ac = new AbortController();
    let wasStalled = false;
    const deadline = setTimeout(() => {
      wasStalled = true;
      ac.abort();
    }, expectedMs + 10_000);
    const t0 = performance.now();
    try {
      const res = await pool.request({ path: req.path, method: 'POST', headers: req.headers, body: req.body, signal: ac.signal });
      if (res.statusCode !== 200) {
        errors++;
        await res.body.dump();
        return;
      }
      let last = -1;
      let tail = '';
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const now = performance.now();
        if (last < 0) ttfb.push(now - t0);
        else gaps.push(now - last);
        if ((last < 0 ? now - t0 : now - last) > o.stallMs) wasStalled = true;
        last = now;
        tail = (tail + chunk.toString('latin1')).slice(-512);
      }
      if (tail.includes(target.endMarker)) completed++;
      else incomplete++;
    } catch {
      if (!wasStalled) errors++;
    } finally {
      clearTimeout(deadline);
      if (wasStalled) stalled++;
    }
  };

  const started = performance.now();
  const all: Promise<void>[] = [];
  // Ramped over half a second: a thousand SYNs at once would overflow the listen backlog (511),
  // which measures the kernel, not the gateway.
  for (let i = 0; i < streams; i++) {
    all.push(one());
    if (i % 10 === 9) await sleep(5);
  }
  await Promise.all(all);
  const wallS = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await pool.close();
  const m = (await (await fetch(`${mock.url}/__stats`)).json()) as MockStats;
  return { completed, stalled, incomplete, errors, wallS, ttfb: statsOf(ttfb), peakRssMb: peakRss / MB, clientGap: statsOf(gaps), mockGap: m.gaps };
}

export async function runSoak(partial: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const o = { ...defaults, ...partial };
  const path = benchPaths.find((p) => p.name.includes(o.path));
  if (!path) throw new Error(`no bench path matches '${o.path}'`);
  process.stderr.write(`soak: ${o.streams} streams × ${o.chunks} chunks @ ${o.intervalMs} ms through ${path.name}\n`);
  const mock = await startMockProcess({ chunks: o.chunks, intervalMs: o.intervalMs });
  const inspectPort = await freePort();
  const gw = await startPolygate(polygateConfig(mock.url), { nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] });
  const inspector = await openInspector(inspectPort);
  const heapAfterGc = async (): Promise<number> => {
    await inspector.call('HeapProfiler.collectGarbage');
    return Number((await inspector.call('Runtime.getHeapUsage')).usedSize) / MB;
  };
  try {
    // A small first round loads and optimizes the code, so round 1 and 2 compare like with like.
    await round({ ...o, chunks: Math.min(o.chunks, 20) }, gw, mock, Math.min(o.streams, 50));
    const heapBeforeMb = await heapAfterGc();
    const rounds: SoakRound[] = [];
    for (let i = 0; i < o.rounds; i++) {
      const r = await round(o, gw, mock, o.streams);
      await sleep(500);
      rounds.push({ ...r, heapAfterMb: await heapAfterGc(), rssAfterMb: (memoryOf(gw.pid)?.rss ?? 0) / MB });
      process.stderr.write(`soak round ${i + 1}: ${r.completed}/${o.streams} completed, ${r.stalled} stalled\n`);
    }
    return { options: o, path: path.name, heapBeforeMb, heapGrowthMb: rounds[rounds.length - 1].heapAfterMb - rounds[0].heapAfterMb, rounds };
  } finally {
    inspector.close();
    await Promise.all([gw.stop(), mock.stop()]);
  }
}

if (import.meta.main) {
  pinSelf(LOAD_CORE);
  process.stdout.write(`${renderSoak(await runSoak()).join('\n')}\n`);
}
