// Issue #17's goals, judged from one run's figures (the report's first section). Every goal is a
// ratio or a difference to the framework floor (framework-floor.ts) measured in the same run, so
// it holds from machine to machine. Each row: the figures, the bound, met or not; "n/a" when a
// figure was not measured (a load level or target left out, a peer not run).
import { benchPaths } from './paths.ts';
import type { JsonRow, Report, StreamRow } from './render-report.ts';
import type { SoakRound } from './soak.ts';
import { allocBaselineKb } from './alloc-per-request.ts';
import { frameworkFloorPath, viaName, type Via } from './targets.ts';

export type GoalRow = { goal: string; path: string; figures: string; bound: string; met: boolean | undefined };

/** The load at which throughput is compared. */
export const GOAL_CONNECTIONS = 32;
export const bounds = {
  translatedShare: 0.7,
  passThroughShare: 0.85,
  timesCcr: 5,
  addedP50Ms: 0.15,
  addedP99Ms: 1,
  addedTtfbP50Ms: 0.2,
  soakWaitMs: 100,
  chunkCpuTimesFloor: 1.5,
  allocShareOfBaseline: 0.5,
  heapGrowthMb: 5,
  rssGrowth: 0.1,
};

const fixed = (v: number, d = 2): string => (Number.isFinite(v) ? v.toFixed(d) : '–');
const signed = (v: number): string => (Number.isFinite(v) ? `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}` : '–');
const int = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');

/** Translated and pass-through paths; echo answers inside polygate and has no upstream to be a floor of. */
function kindOf(path: string): 'translated' | 'pass-through' | undefined {
  if (path.includes('(translate)')) return 'translated';
  if (path.includes('(pass-through)')) return 'pass-through';
  return undefined;
}

/** The framework floor's path a polygate path is compared with (its own inbound format's, else Chat's). */
function floorPathOf(path: string): string {
  const p = benchPaths.find((x) => x.name === path);
  const f = frameworkFloorPath(p?.inbound ?? 'chat');
  return benchPaths.find((x) => x.inbound === f.inbound && x.upstream === f.upstream)?.name ?? '';
}

function throughput(r: Report): GoalRow[] {
  const at = (via: Via, path: string): JsonRow | undefined =>
    r.json.find((x) => x.via === via && x.path === path && x.connections === GOAL_CONNECTIONS);
  const rows: GoalRow[] = [];
  for (const path of [...new Set(r.json.filter((x) => x.via === 'polygate').map((x) => x.path))]) {
    const kind = kindOf(path);
    if (!kind) continue;
    const ours = at('polygate', path);
    const floor = at('framework', floorPathOf(path));
    const share = kind === 'translated' ? bounds.translatedShare : bounds.passThroughShare;
    const ratio = ours && floor ? ours.rps / floor.rps : Number.NaN;
    // A relay's reference beside the floor: the same floor with the relay's package (http-proxy) as its client.
    const proxyFloor = kind === 'pass-through' ? at('framework-http-proxy', floorPathOf(path)) : undefined;
    const proxyNote =
      proxyFloor && floor ? `; the floor with http-proxy as its client: ${fixed(proxyFloor.rps / floor.rps)}` : '';
    rows.push({
      goal: `${kind}: req/s @${GOAL_CONNECTIONS} ÷ framework floor's`,
      path,
      figures: `${int(ours?.rps ?? Number.NaN)} ÷ ${int(floor?.rps ?? Number.NaN)} (${floorPathOf(path)}) = ${fixed(ratio)}${proxyNote}`,
      bound: `≥ ${share.toFixed(2)}`,
      met: Number.isFinite(ratio) ? ratio >= share : undefined,
    });
    if (kind === 'pass-through') rows.push(...notBelowTranslated(r, path, ours));
    const ccr = r.json.find((x) => x.via === 'ccr' && x.connections === GOAL_CONNECTIONS);
    if (kind === 'translated' && path === (ccr?.path ?? 'E → openai-chat (translate)')) {
      const times = ours && ccr ? ours.rps / ccr.rps : Number.NaN;
      rows.push({
        goal: `translated: req/s @${GOAL_CONNECTIONS} ÷ ${viaName.ccr}'s`,
        path,
        figures: ccr
          ? `${int(ours?.rps ?? Number.NaN)} ÷ ${int(ccr.rps)} = ${fixed(times, 1)}×`
          : `n/a: ${viaName.ccr} not measured`,
        bound: `≥ ${bounds.timesCcr}×`,
        met: Number.isFinite(times) ? times >= bounds.timesCcr : undefined,
      });
    }
  }
  return rows;
}

/** Issue #28: a relay does less than a translation, so it is never slower than any translated path of its inbound. */
function notBelowTranslated(r: Report, path: string, ours: JsonRow | undefined): GoalRow[] {
  const inbound = benchPaths.find((x) => x.name === path)?.inbound;
  const translated = r.json
    .filter((x) => x.via === 'polygate' && x.connections === GOAL_CONNECTIONS && kindOf(x.path) === 'translated')
    .filter((x) => benchPaths.find((p) => p.name === x.path)?.inbound === inbound)
    .sort((a, b) => b.rps - a.rps)[0];
  if (!translated) return [];
  const ratio = ours ? ours.rps / translated.rps : Number.NaN;
  return [
    {
      goal: `pass-through: req/s @${GOAL_CONNECTIONS} ÷ the fastest translated path of its inbound`,
      path,
      figures: `${int(ours?.rps ?? Number.NaN)} ÷ ${int(translated.rps)} (${translated.path}) = ${fixed(ratio)}`,
      bound: '≥ 1.00',
      met: Number.isFinite(ratio) ? ratio >= 1 : undefined,
    },
  ];
}

function latency(r: Report): GoalRow[] {
  const rows: GoalRow[] = [];
  const json1 = (via: Via, path: string): JsonRow | undefined =>
    r.json.find((x) => x.via === via && x.path === path && x.connections === 1);
  const stream1 = (via: Via, path: string): StreamRow | undefined =>
    r.stream.find((x) => x.via === via && x.path === path && x.connections === 1);
  const paths = [...new Set([...r.json, ...r.stream].filter((x) => x.via === 'polygate').map((x) => x.path))].filter(
    (p) => kindOf(p),
  );
  for (const path of paths) {
    const fp = floorPathOf(path);
    const diff = (goal: string, ours: number | undefined, floor: number | undefined, bound: number): void => {
      const d = ours !== undefined && floor !== undefined ? ours - floor : Number.NaN;
      rows.push({
        goal,
        path,
        figures: `${signed(ours ?? Number.NaN)} − ${signed(floor ?? Number.NaN)} (${fp}) = ${signed(d)} ms`,
        bound: `≤ ${bound} ms`,
        met: Number.isFinite(d) ? d <= bound : undefined,
      });
    };
    diff(
      "@1: added p50 − framework floor's",
      json1('polygate', path)?.addP50,
      json1('framework', fp)?.addP50,
      bounds.addedP50Ms,
    );
    diff(
      "@1: added p99 − framework floor's",
      json1('polygate', path)?.addP99,
      json1('framework', fp)?.addP99,
      bounds.addedP99Ms,
    );
    diff(
      "@1: stream added TTFB p50 − framework floor's",
      stream1('polygate', path)?.addTtfbP50,
      stream1('framework', fp)?.addTtfbP50,
      bounds.addedTtfbP50Ms,
    );
  }
  return rows;
}

function soak(r: Report): GoalRow[] {
  const s = r.soak;
  if (!s)
    return [
      { goal: 'soak', path: '–', figures: 'n/a: the soak was not run (BENCH_SOAK=0)', bound: '–', met: undefined },
    ];
  const floor = s.rounds.find((x) => x.label === 'framework floor');
  const ours = s.rounds.filter((x) => x.label.startsWith('polygate'));
  const worst = (f: (x: SoakRound) => number): number => Math.max(...ours.map(f));
  const all = ours.every((x) => x.completed === s.options.streams) && floor?.completed === s.options.streams;
  const notAll = all
    ? ''
    : `; not every stream completed (${[floor, ...ours].map((x) => `${x?.label}: ${x?.completed}/${s.options.streams}`).join(', ')})`;
  const maxWait = worst((x) => x.ttfb.max) - (floor?.ttfb.max ?? Number.NaN);
  const p99Wait = worst((x) => x.ttfb.p99) - (floor?.ttfb.p99 ?? Number.NaN);
  const first = ours[0];
  const last = ours[ours.length - 1];
  const rssGrowth = last && first ? last.rssAfterMb / first.rssAfterMb - 1 : Number.NaN;
  const what = `${s.options.streams} streams at ${Math.round((10 * 1000) / s.options.rampStepMs)}/s, ${s.path} vs framework floor on ${s.floorPath}`;
  return [
    {
      goal: "soak: worst first-byte wait beyond the framework floor's",
      path: what,
      figures: `TTFB max ${ours.map((x) => fixed(x.ttfb.max, 1)).join(' / ')} − ${fixed(floor?.ttfb.max ?? Number.NaN, 1)} = ${signed(maxWait)} ms (p99: ${ours.map((x) => fixed(x.ttfb.p99, 1)).join(' / ')} − ${fixed(floor?.ttfb.p99 ?? Number.NaN, 1)} = ${signed(p99Wait)} ms)${notAll}`,
      bound: `≤ ${bounds.soakWaitMs} ms, every stream completed`,
      met: Number.isFinite(maxWait) ? maxWait <= bounds.soakWaitMs && all : undefined,
    },
    {
      goal: 'soak: memory flat across rounds',
      path: what,
      figures: `heap after GC ${ours.map((x) => fixed(x.heapAfterMb, 1)).join(' → ')} MB (${signed(s.heapGrowthMb)} MB); RSS after each round ${ours.map((x) => fixed(x.rssAfterMb, 0)).join(' → ')} MB (${signed(rssGrowth * 100)} %), peak ${ours.map((x) => fixed(x.peakRssMb, 0)).join(' / ')} MB`,
      bound: `flat: heap growth < ${bounds.heapGrowthMb} MB and RSS growth < ${bounds.rssGrowth * 100} %, first to last round`,
      met:
        Number.isFinite(s.heapGrowthMb) && Number.isFinite(rssGrowth)
          ? s.heapGrowthMb < bounds.heapGrowthMb && rssGrowth < bounds.rssGrowth
          : undefined,
    },
  ];
}

/** Issue #28: CPU per translated chunk within 1.5× of the framework floor's per relayed chunk (bench/chunk-cpu.ts). */
function chunkCpu(r: Report): GoalRow[] {
  const c = r.chunkCpu;
  const goal = "CPU per translated chunk ÷ the framework floor's per relayed chunk";
  if (!c) return [{ goal, path: '–', figures: 'n/a: not run (BENCH_CHUNK_CPU=0)', bound: '–', met: undefined }];
  const floor = c.rows.find((x) => x.name.startsWith('framework floor'))?.perChunkUs ?? Number.NaN;
  const ours = c.rows.find((x) => x.name === 'polygate · translated')?.perChunkUs ?? Number.NaN;
  const relayed = c.rows.find((x) => x.name === 'polygate · relayed')?.perChunkUs ?? Number.NaN;
  return [
    {
      goal,
      path: 'E → openai-chat (translate) vs framework floor on E → anthropic',
      figures: `${fixed(ours)} ÷ ${fixed(floor)} µs = ${fixed(ours / floor)}× (polygate relayed: ${fixed(relayed)} µs, ${fixed(relayed / floor)}×)`,
      bound: `≤ ${bounds.chunkCpuTimesFloor}×`,
      met: Number.isFinite(ours / floor) ? ours / floor <= bounds.chunkCpuTimesFloor : undefined,
    },
  ];
}

/**
 * Issue #28's goal 4: bytes allocated per request halved from before the issue's work (the baseline
 * in alloc-per-request.ts). Unlike the others this is not a ratio to the floor: the sampling heap
 * profiler's bytes do not depend on the machine or its load.
 */
function alloc(r: Report): GoalRow[] {
  const goal = 'bytes allocated per request ÷ before issue #28 (e5ad342)';
  if (!r.alloc) return [{ goal, path: '–', figures: 'n/a: not run (BENCH_ALLOC=0)', bound: '–', met: undefined }];
  const rows = r.alloc.rows;
  return rows
    .filter((a) => !a.floor)
    .map((a) => {
      const before = allocBaselineKb[`${a.path} ${a.mode}`] ?? Number.NaN;
      // The floor of the same inbound with the path's upstream client (a relay's is http-proxy): the card's packages
      // alone, what polygate cannot go below; its share of `before` says how much room the goal leaves polygate.
      const client = a.path.includes('(pass-through)') ? 'http-proxy' : 'undici';
      const inbound = a.path.startsWith('chat') ? 'chat → openai-chat' : 'E → anthropic';
      const floor = rows.find((f) => f.floor === client && f.mode === a.mode && f.path.includes(` · ${inbound}`));
      const floorNote = floor
        ? ` (framework floor, ${client} client: ${fixed(floor.kb, 1)} KB = ${fixed(floor.kb / before)})`
        : '';
      return {
        goal,
        path: `${a.path}, ${a.mode}`,
        figures: `${fixed(a.kb, 1)} ÷ ${fixed(before, 1)} KB = ${fixed(a.kb / before)}${floorNote}`,
        bound: `≤ ${bounds.allocShareOfBaseline}`,
        met: Number.isFinite(a.kb / before) ? a.kb / before <= bounds.allocShareOfBaseline : undefined,
      };
    });
}

export function goalRows(r: Report): GoalRow[] {
  return [...throughput(r), ...latency(r), ...soak(r), ...chunkCpu(r), ...alloc(r)];
}

export function renderGoals(r: Report): string[] {
  const rows = goalRows(r);
  const met = rows.filter((x) => x.met === true).length;
  const judged = rows.filter((x) => x.met !== undefined).length;
  const out = [
    `${met} of ${judged} judged goals met${judged < rows.length ? ` (${rows.length - judged} n/a)` : ''}. Figures from this run: req/s are medians at ${GOAL_CONNECTIONS} connections; "added" is a target's latency minus the same load sent straight to the mock, at 1 connection.`,
    'Each polygate path is compared with the framework floor on the path of its own inbound format (Messages → Messages or Chat → Chat), else with Chat → Chat (named in each row). E → echo is neither translated nor relayed and has no goal.',
    '',
    '| goal | path | figures | bound | met |',
    '|---|---|---|---|:---:|',
  ];
  for (const g of rows)
    out.push(
      `| ${g.goal} | ${g.path} | ${g.figures} | ${g.bound} | ${g.met === undefined ? 'n/a' : g.met ? '✅' : '❌'} |`,
    );
  return out;
}
