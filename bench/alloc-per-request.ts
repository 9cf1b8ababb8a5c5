// `node bench/alloc-per-request.ts`: bytes polygate allocates per request, per path and mode (issue
// #28), from V8's sampling heap profiler with the objects the GC already collected included
// (`HeapProfiler.startSampling`, 512-byte interval), started through the inspector protocol after a
// warm-up, over a fixed number of requests on a few keep-alive connections. The figure does not
// depend on how busy the machine is. Prints the total per request and the functions that allocate most.
//
//   ALLOC_REQUESTS (3000)  ALLOC_WARMUP (2000)  ALLOC_CONNECTIONS (4)  BENCH_POLYGATE_DIR / BENCH_BEFORE (another checkout)
//   ALLOC_EXTRA (more paths of bench/paths.ts, comma-separated, e.g. "C → openai-chat (translate)")
//   ALLOC_ONLY (a substring of a path name, e.g. "translate"; mode json/stream too: "translate json")
//   ALLOC_TOP (6: how many allocators to name per row)  ALLOC_SAVE (a folder: each row's .heapprofile is written there)
//   ALLOC_INTERVAL_MS (0: the mock's chunks as fast as it writes them, often several to one gateway read; 2: each chunk
//     a read of its own, as a model's stream comes, so the per-read and per-write costs count once a chunk)
//   ALLOC_SURVIVORS=1: only what survived a scavenge (objects a young-generation GC collected are left out, and two
//     scavenges run before the sample stops): the bytes the scavenger copies and promotes, what sets the GC's cost per
//     request beyond the bytes allocated (issue #28: a relayed request kept 16 KB of its objects past a scavenge)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { benchPaths, polygateConfig } from './paths.ts';
import {
  beforeDir,
  freePort,
  GATEWAY_CORE,
  LOAD_CORE,
  pinSelf,
  repoRoot,
  startMockProcess,
  startNodeProcess,
  startPolygate,
} from './processes.ts';
import { streamOnce } from './stream-client.ts';
import { frameworkFloorTarget, polygateTarget, type Target } from './targets.ts';

const env = process.env;
const requests = Number(env.ALLOC_REQUESTS ?? 3000);
const warmup = Number(env.ALLOC_WARMUP ?? 2000);
const connections = Number(env.ALLOC_CONNECTIONS ?? 4);
const only = (env.ALLOC_ONLY ?? '').split(' ').filter(Boolean);
const topN = Number(env.ALLOC_TOP ?? 6);
const survivors = env.ALLOC_SURVIVORS === '1';
const intervalMs = Number(env.ALLOC_INTERVAL_MS ?? 0);

type ProfileNode = {
  selfSize: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
};

/** A minimal Chrome DevTools Protocol client (with params) over the inspector's WebSocket. */
async function inspector(
  port: number,
): Promise<{ call(method: string, params?: unknown): Promise<Record<string, unknown>>; close(): void }> {
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
    call: (method, params) =>
      new Promise((ok) => {
        pending.set(++id, ok);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

async function load(t: Target, stream: boolean, n: number): Promise<void> {
  const pool = new Pool(t.baseUrl, { connections, pipelining: 1 });
  const req = t.request(stream);
  let left = n;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      if (stream) {
        const r = await streamOnce(pool, req, t.endMarker);
        if (r.status !== 200 || !r.whole) throw new Error(`${t.id}: stream ${r.status} ${r.error?.message ?? ''}`);
      } else {
        const r = await pool.request({ path: req.path, method: 'POST', headers: req.headers, body: req.body });
        await r.body.text();
        if (r.statusCode !== 200) throw new Error(`${t.id}: ${r.statusCode}`);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  await pool.close();
}

function walk(n: ProfileNode, by: Map<string, number>): number {
  const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src|adapters)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  by.set(key, (by.get(key) ?? 0) + n.selfSize);
  return n.children.reduce((s, c) => s + walk(c, by), n.selfSize);
}

/**
 * One measured row: path and mode as `alloc` goals name them, KB allocated per request; `floor`: a framework
 * floor's row (its upstream client), not polygate's.
 */
export type AllocRow = { path: string; mode: 'json' | 'stream'; kb: number; floor?: 'undici' | 'http-proxy' };

/**
 * KB per request before issue #28's work (main at e5ad342, measured with this script on 2026-11-27:
 * bench/RESULTS.md, "Session 9: per-request work"): goal 4 is to halve them.
 */
export const allocBaselineKb: Record<string, number> = {
  'E → openai-chat (translate) json': 104.4,
  'E → openai-chat (translate) stream': 159.8,
  'E → anthropic (pass-through) json': 96.3,
  'E → anthropic (pass-through) stream': 127.3,
  'chat → openai-chat (pass-through) json': 91.1,
  'chat → openai-chat (pass-through) stream': 134.1,
};

/** Samples one process's allocations over `requests` requests of each row (after a warm-up of each). */
async function measureRows(
  ins: Awaited<ReturnType<typeof inspector>>,
  rows: { name: string; t: Target }[],
  out: string[],
  found: AllocRow[],
  floor?: AllocRow['floor'],
): Promise<void> {
  for (const { name, t } of rows)
    for (const stream of [false, true]) {
      const label = `${name} ${stream ? 'stream' : 'json'}`;
      if (!only.every((w) => label.includes(w))) continue;
      await load(t, stream, warmup);
      await ins.call('HeapProfiler.collectGarbage');
      await ins.call('HeapProfiler.startSampling', {
        samplingInterval: 512,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !survivors,
      });
      await load(t, stream, requests);
      if (survivors)
        for (let i = 0; i < 2; i++)
          await ins.call('Runtime.evaluate', { expression: "gc({ type: 'minor' })", includeCommandLineAPI: true });
      const { profile } = (await ins.call('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
      if (env.ALLOC_SAVE)
        writeFileSync(
          join(env.ALLOC_SAVE, `${name.replace(/[^a-z-]+/gi, '_')}-${stream ? 'stream' : 'json'}.heapprofile`),
          JSON.stringify(profile),
        );
      const by = new Map<string, number>();
      const total = walk(profile.head, by);
      const top = [...by.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, topN)
        .map(([k, v]) => `\`${k}\` ${(v / requests / 1024).toFixed(1)}`)
        .join(', ');
      found.push({ path: name, mode: stream ? 'stream' : 'json', kb: total / requests / 1024, floor });
      out.push(`| ${name} | ${stream ? 'stream' : 'json'} | ${(total / requests / 1024).toFixed(1)} | ${top} |`);
      process.stderr.write(`${out[out.length - 1]}\n`);
    }
}

/**
 * The framework floor (bench/framework-floor.ts: Koa, @koa/router, koa-body and the upstream client, no gateway
 * logic) measured the same way: what the design card's packages allocate for the same requests before any of
 * polygate's own work. With `--client http-proxy` its upstream call goes through http-proxy and node:http, as
 * polygate's same-format relay does: the bytes a relay cannot go below with the card's relay package.
 */
async function floorRows(mockUrl: string, client: 'undici' | 'http-proxy', out: string[], found: AllocRow[]) {
  const port = await freePort();
  const floor = await startNodeProcess(`framework floor (${client})`, join(repoRoot, 'bench/framework-floor.ts'), {
    core: GATEWAY_CORE,
    nodeArgs: [`--inspect=127.0.0.1:${port}`, ...(survivors ? ['--expose-gc'] : [])],
    args: (p) => ['--port', String(p), '--target', mockUrl, '--client', client],
  });
  const ins = await inspector(port);
  try {
    await measureRows(
      ins,
      (['messages', 'chat'] as const).map((inbound) => {
        const t = frameworkFloorTarget(inbound, floor.url);
        return { name: `framework floor, ${client} client · ${t.path}`, t };
      }),
      out,
      found,
      client,
    );
  } finally {
    ins.close();
    await floor.stop();
  }
}

export async function allocPerRequest(dir?: string): Promise<{ lines: string[]; rows: AllocRow[] }> {
  const mock = await startMockProcess({ chunks: 20, intervalMs: intervalMs });
  const port = await freePort();
  const gw = await startPolygate(polygateConfig(mock.url), {
    dir,
    nodeArgs: [`--inspect=127.0.0.1:${port}`, ...(survivors ? ['--expose-gc'] : [])],
    logToFile: true,
  });
  const ins = await inspector(port);
  const out = [
    `Bytes ${survivors ? 'surviving a scavenge' : 'allocated'} per request (\`${survivors ? 'ALLOC_SURVIVORS=1 ' : ''}node bench/alloc-per-request.ts\`${dir ? `, ${dir}` : ''}): V8 sampling heap profiler, ${survivors ? 'objects collected by a major GC included, by a scavenge left out' : 'collected objects included'}, 512-byte interval, ${requests} requests after ${warmup} of warm-up, ${connections} connections; stream answers of 20 chunks${intervalMs > 0 ? `, one every ${intervalMs} ms` : ''}. The framework floor's rows (without \`dir\`; ALLOC_FLOORS=0 leaves them out): the design card's packages alone on the same requests, with undici and with http-proxy (the relay's package) as the upstream client.`,
    '',
    '| path | mode | KB / request | top allocators (KB / request) |',
    '|---|---|---:|---|',
  ];
  const rows: AllocRow[] = [];
  try {
    await measureRows(
      ins,
      [
        'E → openai-chat (translate)',
        'E → anthropic (pass-through)',
        'chat → openai-chat (pass-through)',
        ...(env.ALLOC_EXTRA ?? '').split(',').filter(Boolean),
      ].map((name) => ({
        name,
        t: polygateTarget(
          benchPaths.find((p) => p.name === name)!,
          gw.url,
        ),
      })),
      out,
      rows,
    );
  } finally {
    ins.close();
    await gw.stop();
  }
  try {
    if (!dir && env.ALLOC_FLOORS !== '0')
      for (const client of ['undici', 'http-proxy'] as const) await floorRows(mock.url, client, out, rows);
  } finally {
    await mock.stop();
  }
  return { lines: out, rows };
}

if (import.meta.main) {
  pinSelf(LOAD_CORE);
  const lines = [...(await allocPerRequest()).lines];
  if (beforeDir) lines.push('', ...(await allocPerRequest(beforeDir)).lines);
  process.stdout.write(`${lines.join('\n')}\n`);
}
