// Turns the repeats into medians and overheads, and the medians into the markdown of
// bench/results/latest.md (pasted into bench/RESULTS.md). Overhead = the target minus the direct
// baseline at the same load, each the median of its repeats.
import { renderAb, type AbRow } from './ab-compare.ts';
import type { LoadResult } from './load-autocannon.ts';
import type { StreamLoadResult } from './load-streams.ts';
import { median } from './stats.ts';
import type { SoakReport } from './soak.ts';
import { renderChunkCpu, type ChunkCpuOptions, type ChunkCpuRow } from './chunk-cpu.ts';
import type { AllocRow } from './alloc-per-request.ts';
import { renderGoals } from './goals.ts';
import { viaName, type Target, type Via } from './targets.ts';

/** One measurement, with the new upstream connections the mock saw per request meanwhile. */
export type Repeat = (LoadResult | StreamLoadResult) & {
  upstreamConnsPerRequest: number;
  /** Cores' worth of CPU other work on the machine used during the measurement. */
  otherCores: number;
  /**
   * CPU time the gateway spent per request or stream, in ms (NaN when its pid is not known). On a
   * shared machine it varies much less than wall-clock figures: waiting for a core costs no CPU.
   */
  gatewayCpuMsPerRequest: number;
};
export type Measured = { target: Target; mode: 'json' | 'stream'; connections: number; repeats: Repeat[] };

type RowBase = { id: string; path: string; via: Via; connections: number; upstreamConnsPerRequest: number };
export type JsonRow = RowBase & {
  rps: number;
  p50: number;
  p99: number;
  addP50?: number;
  addP99?: number;
  errors: number;
};
export type StreamRow = RowBase & {
  sps: number;
  ttfbP50: number;
  ttfbP99: number;
  totalP50: number;
  totalP99: number;
  addTtfbP50?: number;
  addTtfbP99?: number;
  addTotalP50?: number;
  errors: number;
  incomplete: number;
};

export type Report = {
  meta: Record<string, string | number>;
  json: JsonRow[];
  stream: StreamRow[];
  skipped: { id: string; reason: string }[];
  soak?: SoakReport;
  /** CPU per streamed chunk, translated vs relayed vs the framework floor (bench/chunk-cpu.ts, issue #28). */
  chunkCpu?: { options: ChunkCpuOptions; rows: ChunkCpuRow[] };
  /** Bytes allocated per request, per path and mode (bench/alloc-per-request.ts, issue #28's goal 4). */
  alloc?: { lines: string[]; rows: AllocRow[] };
  /** BENCH_BEFORE runs: this tree against the older checkout, per path, mode and load. */
  ab?: AbRow[];
};

const med = <T>(rs: T[], f: (r: T) => number): number => median(rs.map(f));
const sum = <T>(rs: T[], f: (r: T) => number): number => rs.reduce((n, r) => n + f(r), 0);

export function aggregate(measured: Measured[]): { json: JsonRow[]; stream: StreamRow[] } {
  const json: JsonRow[] = [];
  const stream: StreamRow[] = [];
  for (const m of measured) {
    const base = {
      id: m.target.id,
      path: m.target.path,
      via: m.target.via,
      connections: m.connections,
      upstreamConnsPerRequest: med(m.repeats, (r) => r.upstreamConnsPerRequest),
    };
    if (m.mode === 'json') {
      const rs = m.repeats as (LoadResult & Repeat)[];
      json.push({
        ...base,
        rps: med(rs, (r) => r.rps),
        p50: med(rs, (r) => r.p50),
        p99: med(rs, (r) => r.p99),
        errors: sum(rs, (r) => r.errors),
      });
    } else {
      const rs = m.repeats as (StreamLoadResult & Repeat)[];
      stream.push({
        ...base,
        sps: med(rs, (r) => r.sps),
        ttfbP50: med(rs, (r) => r.ttfbP50),
        ttfbP99: med(rs, (r) => r.ttfbP99),
        totalP50: med(rs, (r) => r.totalP50),
        totalP99: med(rs, (r) => r.totalP99),
        errors: sum(rs, (r) => r.errors),
        incomplete: sum(rs, (r) => r.incomplete),
      });
    }
  }
  const baseOf = <R extends RowBase>(rows: R[], m: Measured): R | undefined =>
    rows.find((r) => r.id === m.target.baselineId && r.connections === m.connections);
  for (const m of measured) {
    if (m.target.via === 'direct') continue;
    if (m.mode === 'json') {
      const row = json.find((r) => r.id === m.target.id && r.connections === m.connections)!;
      const b = baseOf(json, m);
      if (b) Object.assign(row, { addP50: row.p50 - b.p50, addP99: row.p99 - b.p99 });
    } else {
      const row = stream.find((r) => r.id === m.target.id && r.connections === m.connections)!;
      const b = baseOf(stream, m);
      if (b)
        Object.assign(row, {
          addTtfbP50: row.ttfbP50 - b.ttfbP50,
          addTtfbP99: row.ttfbP99 - b.ttfbP99,
          addTotalP50: row.totalP50 - b.totalP50,
        });
    }
  }
  return { json, stream };
}

const ms = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(2));
const add = (v: number | undefined): string =>
  v === undefined || !Number.isFinite(v) ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;
const int = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const who = (r: RowBase): string => (r.via === 'direct' ? `direct to ${r.path}` : r.id);

function jsonTable(rows: JsonRow[]): string[] {
  const out = [
    '| connections | target | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms | errors | new upstream conns / req |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    out.push(
      `| ${r.connections} | ${who(r)} | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${add(r.addP50)} | ${add(r.addP99)} | ${r.errors} | ${ms(r.upstreamConnsPerRequest)} |`,
    );
  return out;
}

function streamTable(rows: StreamRow[]): string[] {
  const out = [
    '| connections | target | streams/s | TTFB p50 ms | TTFB p99 ms | whole p50 ms | whole p99 ms | added TTFB p50 | added TTFB p99 | added whole p50 | errors/incomplete | new upstream conns / req |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    out.push(
      `| ${r.connections} | ${who(r)} | ${int(r.sps)} | ${ms(r.ttfbP50)} | ${ms(r.ttfbP99)} | ${ms(r.totalP50)} | ${ms(r.totalP99)} | ${add(r.addTtfbP50)} | ${add(r.addTtfbP99)} | ${add(r.addTotalP50)} | ${r.errors}/${r.incomplete} | ${ms(r.upstreamConnsPerRequest)} |`,
    );
  }
  return out;
}

/** polygate beside the other targets measured on one of its paths (peers, floors). */
function sideBySide(r: Report, path: string): string[] {
  const order: Via[] = ['polygate', 'portkey', 'ccr', 'framework', 'framework-http-proxy', 'floor'];
  const vias = order.filter(
    (v) => r.json.some((x) => x.via === v && x.path === path) || r.stream.some((x) => x.via === v && x.path === path),
  );
  if (vias.length < 2) return [];
  const j = (via: Via, c: number): JsonRow | undefined =>
    r.json.find((x) => x.via === via && x.path === path && x.connections === c);
  const s = (via: Via, c: number): StreamRow | undefined =>
    r.stream.find((x) => x.via === via && x.path === path && x.connections === c);
  const conns = [...new Set([...r.json, ...r.stream].map((x) => x.connections))].filter((c) => c > 1);
  type Metric = [string, (via: Via) => number | undefined, (v: number | undefined) => string];
  const count = (v: number | undefined): string => (v === undefined ? '–' : int(v));
  const metrics: Metric[] = [
    ...conns.map((c): Metric => [`req/s @${c}`, (v) => j(v, c)?.rps, count]),
    ['added p50 @1 (ms)', (v) => j(v, 1)?.addP50, add],
    ['added p99 @1 (ms)', (v) => j(v, 1)?.addP99, add],
    ['added TTFB p50 @1 (ms)', (v) => s(v, 1)?.addTtfbP50, add],
    ['added whole-stream p50 @1 (ms)', (v) => s(v, 1)?.addTotalP50, add],
    ...conns.map((c): Metric => [`streams/s @${c}`, (v) => s(v, c)?.sps, count]),
  ];
  const out = [
    `Path: ${path}.`,
    '',
    `| metric | ${vias.map((v) => viaName[v]).join(' | ')} |`,
    `|---|${vias.map(() => '---:').join('|')}|`,
  ];
  for (const [name, get, f] of metrics) out.push(`| ${name} | ${vias.map((v) => f(get(v))).join(' | ')} |`);
  return out;
}

export function renderSoak(s: SoakReport): string[] {
  const o = s.options;
  const pct = (v: number): string => (Number.isFinite(v) ? `${Math.round(v * 100)} %` : '–');
  const mb = (v: number): string => (Number.isFinite(v) ? v.toFixed(0) : '–');
  const gaps = (g: { p50: number; p99: number; max: number }): string => `${ms(g.p50)} / ${ms(g.p99)} / ${ms(g.max)}`;
  const out = [
    `${o.streams} concurrent streams of ${o.chunks} chunks every ${o.intervalMs} ms (opened 10 every ${o.rampStepMs} ms), path ${s.path}: first straight at the mock (the harness's own limits), then through the framework floor (${s.floorPath}), then ${s.rounds.length - 2} rounds through polygate (each gateway warmed up first by 50 streams).`,
    `"Slow start": waited more than ${o.stallMs} ms for the first byte; "stalled": more than ${o.stallMs} ms between two chunks, or not finished ${o.chunks * o.intervalMs + 10_000} ms after it started (then cut). CPU is core-seconds used ÷ wall time (100 % = one saturated core); the load core runs the mock and the client.`,
    '',
    '| round | completed | slow start | stalled | incomplete / errors | wall s | TTFB p50 / p99 / max ms | client gap p50 / p99 / max ms | mock gap p50 / p99 / max ms | CPU polygate | CPU load core | CPU other work | SYNs dropped | peak RSS MB | RSS after MB | heap after GC MB |',
    '|---|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of s.rounds) {
    out.push(
      `| ${r.label} | ${r.completed}/${o.streams} | ${r.slowStart} | ${r.stalled} | ${r.incomplete} / ${r.errors} | ${r.wallS.toFixed(1)} | ${gaps(r.ttfb)} | ${gaps(r.clientGap)} | ${gaps(r.mockGap)} | ${pct(r.gatewayCpu)} | ${pct(r.loadCoreCpu)} | ${pct(r.otherCores)} | ${r.listenOverflows} | ${mb(r.peakRssMb)} | ${mb(r.rssAfterMb)} | ${ms(r.heapAfterMb)} |`,
    );
  }
  for (const r of s.rounds.filter((x) => x.errors > 0))
    out.push(
      '',
      `Errors in ${r.label}: ${Object.entries(r.errorKinds)
        .map(([k, n]) => `${n} × ${k}`)
        .join('; ')}.`,
    );
  out.push(
    '',
    `Heap after GC before the first polygate round: ${ms(s.heapBeforeMb)} MB; growth from the first to the last polygate round: ${add(s.heapGrowthMb)} MB.`,
  );
  return out;
}

export function renderReport(r: Report): string {
  const m = r.meta;
  const lines = [
    `Generated ${m.date} by \`${m.command}\` (${m.wallMinutes} min).`,
    '',
    `Machine: ${m.cpu}, ${m.memoryGb} GB, Linux ${m.kernel}; Node ${m.node}; autocannon ${m.autocannon}; @portkey-ai/gateway ${m.portkey}; @musistudio/claude-code-router ${m.ccr}. polygate: ${m.polygate}.`,
    `Floors: "framework floor" = Koa + @koa/router + koa-body + an undici Pool, parsing and re-serializing every body, no logic (bench/framework-floor.ts); "bare hop" = node:http relaying bytes, parsing nothing (bench/floor-proxy.ts).`,
    `Runtime: polygate and the framework floor run under the same process-wide V8 settings, polygate's src/app/v8-settings.ts imported first by both (allocation-site pretenuring off: bench/RESULTS.md, "Session 11: GC mode"); the bare hop and the peers under Node's defaults.`,
    `Pinning: ${m.pinning}. Each figure is the median of ${m.repeats} repeat(s) of ${m.durationS} s, interleaved across targets (warm-up: ${m.warmupS});`,
    `streams carry ${m.streamChunks} text chunks with no delay between them. "added" = the target minus the same load sent straight to the mock in the upstream's format.`,
    `Other work on the machine during the measurements: ${m.otherCpuSeconds} CPU-seconds (1-min load average ${m.loadAtStart} at the start)${Number(m.otherCpuSeconds) > 10 ? ' — the machine was shared; figures are noisier than on an idle one' : ''}.`,
    `Measurements disturbed by it (other work above 0.1 core) were taken again ${m.retried} time(s); ${m.keptDisturbed} of ${m.measurements} kept measurements remained disturbed.`,
    '',
    `polygate ran with: ${m.operatorFeatures}. Its request log: ${m.accessLog}.`,
    '',
    '### Goals (issues #17 and #28)',
    '',
    ...renderGoals(r),
    '',
    ...(r.ab
      ? [
          '### A/B: this tree against the older checkout (BENCH_BEFORE), same run',
          '',
          ...renderAb(r.ab, {
            after: String(m.polygate),
            before: String(m.polygateBefore),
            repeats: Number(m.repeats),
          }),
          '',
        ]
      : []),
    '### Side by side on the shared paths',
    '',
    ...[
      ...new Set(
        [...r.json, ...r.stream]
          .filter((x) => x.via !== 'polygate' && x.via !== 'polygate-before' && x.via !== 'direct')
          .map((x) => x.path),
      ),
    ].flatMap((p) => [...sideBySide(r, p), '']),
    '### Non-streaming',
    '',
    ...jsonTable(r.json),
    '',
    '### Streaming',
    '',
    ...streamTable(r.stream),
    '',
  ];
  if (r.skipped.length > 0)
    lines.push(
      '### Not measured (the target did not answer the probe: path not served yet, or a peer that cannot)',
      '',
      ...r.skipped.map((s) => `- ${s.id}: ${s.reason}`),
      '',
    );
  if (r.soak) lines.push('### Soak', '', ...renderSoak(r.soak), '');
  if (r.chunkCpu)
    lines.push('### CPU per streamed chunk', '', ...renderChunkCpu(r.chunkCpu.rows, r.chunkCpu.options), '');
  if (r.alloc) lines.push('### Bytes allocated per request', '', ...r.alloc.lines, '');
  return `${lines.join('\n')}\n`;
}
