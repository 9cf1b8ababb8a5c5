// A/B in one run (BENCH_BEFORE=DIR): this tree's polygate ("after") and an older checkout's
// ("before") measured in the same cells, their repeats interleaved. Per path, mode and load, each
// figure's after ÷ before ratio and a verdict: slower, faster, or the same within noise.
//
// Noise: the repeats of a cell are paired (after and before measured back to back), so each
// repeat gives one after ÷ before ratio. A figure is called slower (or faster) only when
//   1. the ratio of the medians is worse (better) than 1 by more than the cell's noise band, and
//   2. every paired repeat points the same way (one lucky or unlucky repeat cannot decide it).
// The noise band is the larger of NOISE_FLOOR and half the range of the paired ratios: the
// repeats' own disagreement, so a noisy cell (p99, a shared machine) needs a larger difference.
import type { LoadResult } from './load-autocannon.ts';
import type { StreamLoadResult } from './load-streams.ts';
import { median } from './stats.ts';
import type { Measured, Repeat } from './render-report.ts';

/**
 * The smallest difference ever called a change: ±5 %. An A/A run on this machine (the same tree
 * as both targets, `BENCH_BEFORE=.`) puts most medians of two identical processes within it, and
 * bench/RESULTS.md ("Run-to-run variation") measured ~10 % between runs minutes apart.
 */
export const NOISE_FLOOR = 0.05;

type Metric = { name: string; higherIsBetter: boolean; of: (r: Repeat) => number };

const jsonMetrics: Metric[] = [
  { name: 'req/s', higherIsBetter: true, of: (r) => (r as LoadResult & Repeat).rps },
  { name: 'p50', higherIsBetter: false, of: (r) => (r as LoadResult & Repeat).p50 },
  { name: 'p99', higherIsBetter: false, of: (r) => (r as LoadResult & Repeat).p99 },
  { name: 'CPU ms/req', higherIsBetter: false, of: (r) => r.gatewayCpuMsPerRequest },
];
const streamMetrics: Metric[] = [
  { name: 'streams/s', higherIsBetter: true, of: (r) => (r as StreamLoadResult & Repeat).sps },
  { name: 'TTFB p50', higherIsBetter: false, of: (r) => (r as StreamLoadResult & Repeat).ttfbP50 },
  { name: 'whole p50', higherIsBetter: false, of: (r) => (r as StreamLoadResult & Repeat).totalP50 },
  { name: 'CPU ms/stream', higherIsBetter: false, of: (r) => r.gatewayCpuMsPerRequest },
];

/** `unknown`: a single repeat, which has no spread to tell a change from noise. */
export type Verdict = 'slower' | 'faster' | 'same' | 'unknown';
export type AbFigure = { metric: string; after: number; before: number; ratio: number; band: number; verdict: Verdict };
export type AbRow = {
  path: string;
  mode: 'json' | 'stream';
  connections: number;
  figures: AbFigure[];
  verdict: Verdict;
};

function compare(m: Metric, after: Repeat[], before: Repeat[]): AbFigure {
  const a = median(after.map(m.of));
  const b = median(before.map(m.of));
  const ratio = a / b;
  const paired = after.map((r, i) => m.of(r) / m.of(before[i])).filter((q) => Number.isFinite(q));
  const band = Math.max(NOISE_FLOOR, paired.length > 1 ? (Math.max(...paired) - Math.min(...paired)) / 2 : 0);
  // "worse" as a factor above 1 whichever way the figure points.
  const worse = (q: number): number => (m.higherIsBetter ? 1 / q : q);
  let verdict: Verdict = paired.length < 2 ? 'unknown' : 'same';
  if (verdict === 'unknown') return { metric: m.name, after: a, before: b, ratio, band, verdict };
  if (worse(ratio) > 1 + band && paired.every((q) => worse(q) > 1)) verdict = 'slower';
  else if (worse(ratio) < 1 / (1 + band) && paired.every((q) => worse(q) < 1)) verdict = 'faster';
  return { metric: m.name, after: a, before: b, ratio, band, verdict };
}

/** One row per path, mode and load that both the after and the before target measured. */
export function abCompare(measured: Measured[]): AbRow[] {
  const rows: AbRow[] = [];
  for (const after of measured.filter((m) => m.target.via === 'polygate')) {
    const before = measured.find(
      (m) =>
        m.target.via === 'polygate-before' &&
        m.target.path === after.target.path &&
        m.mode === after.mode &&
        m.connections === after.connections,
    );
    if (!before) continue;
    const n = Math.min(after.repeats.length, before.repeats.length);
    const figures = (after.mode === 'json' ? jsonMetrics : streamMetrics).map((m) =>
      compare(m, after.repeats.slice(0, n), before.repeats.slice(0, n)),
    );
    const any = (v: Verdict): boolean => figures.some((f) => f.verdict === v);
    const verdict: Verdict = any('unknown') ? 'unknown' : any('slower') ? 'slower' : any('faster') ? 'faster' : 'same';
    rows.push({ path: after.target.path, mode: after.mode, connections: after.connections, figures, verdict });
  }
  return rows;
}

const bandOf = (f: AbFigure): string => (f.verdict === 'unknown' ? '' : ` ±${Math.round(f.band * 100)} %`);
const fmt = (v: number): string =>
  !Number.isFinite(v) ? '–' : v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2);
const label: Record<Verdict, string> = {
  slower: '❌ slower',
  faster: '✅ faster',
  same: '= within noise',
  unknown: '? one repeat: no noise estimate',
};
const mark: Record<Verdict, string> = { slower: ' ❌', faster: ' ✅', same: '', unknown: '' };

export function renderAb(rows: AbRow[], meta: { after: string; before: string; repeats: number }): string[] {
  if (rows.length === 0) return [];
  const out = [
    `After: ${meta.after}. Before: ${meta.before}. Each cell: after ÷ before of the medians (before's median in brackets; ms for latencies),`,
    `± the cell's noise band (the larger of ${NOISE_FLOOR * 100} % and half the range of the paired repeats' ratios). A figure is slower or faster only beyond`,
    'its band with every paired repeat pointing the same way; a row is slower when any of its figures is.',
    `With ${meta.repeats} paired repeats, all of them pointing the same way by chance alone has a probability of ${Math.round(2 ** (1 - meta.repeats) * 100)} % per figure`,
    '(a sign test): at 3 repeats, expect a few ❌ and ✅ on unchanged code across a whole table; re-measure a flagged path with BENCH_REPEATS=5 or more.',
    '',
  ];
  for (const mode of ['json', 'stream'] as const) {
    const rs = rows.filter((r) => r.mode === mode);
    if (rs.length === 0) continue;
    const names = rs[0].figures.map((f) => f.metric);
    out.push(
      `| ${mode === 'json' ? 'non-streaming' : 'streaming'} path | conns | ${names.join(' | ')} | verdict |`,
      `|---|---:|${names.map(() => '---:|').join('')}---|`,
    );
    for (const r of rs) {
      const cells = r.figures.map((f) => `${f.ratio.toFixed(3)}× (${fmt(f.before)})${bandOf(f)}${mark[f.verdict]}`);
      out.push(`| ${r.path} | ${r.connections} | ${cells.join(' | ')} | ${label[r.verdict]} |`);
    }
    out.push('');
  }
  const slower = rows.filter((r) => r.verdict === 'slower');
  out.push(
    slower.length === 0
      ? `No path slower than before beyond noise (${rows.length} cells).`
      : `Slower beyond noise in ${slower.length} of ${rows.length} cells: ${slower.map((r) => `${r.path} (${r.mode}, ${r.connections} conns)`).join('; ')}.`,
  );
  return out;
}
