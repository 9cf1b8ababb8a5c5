// The read API's report: daily rows from the ledger store, grouped by any of key / model /
// provider / day, as JSON or CSV.
import { invalid } from '../../ir/gateway-error.ts';
import type { LedgerStore } from './ledger-store.ts';
import { nanoPerUsd } from './prices.ts';
import { addTo, dayOf, emptyRow, measures, type Measure, type UsageRow } from './usage-record.ts';

export const dimensions = ['key', 'model', 'provider', 'day'] as const;
export type Dimension = (typeof dimensions)[number];

export type ReportQuery = {
  since: string;
  until: string;
  groupBy: Dimension[];
  key?: string;
  model?: string;
  provider?: string;
};

export type ReportRow = Partial<Record<Dimension, string>> & Record<Measure, number> & { cost_usd: number };
export type Report = {
  since: string;
  until: string;
  group_by: Dimension[];
  rows: ReportRow[];
  totals: Record<Measure, number> & { cost_usd: number };
};

const dayMs = 86_400_000;

/** `7d` (today and the six days before), a date `YYYY-MM-DD`, or `today`; days are UTC. */
export function parseDay(v: string, param: string, now: number): string {
  const rel = /^(\d{1,4})d$/.exec(v);
  if (rel) return dayOf(now - Math.max(0, Number(rel[1]) - 1) * dayMs);
  if (v === 'today') return dayOf(now);
  if (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))) return v;
  throw invalid(param, `${param}: '${v}' is neither a UTC date (YYYY-MM-DD) nor a number of days (e.g. 7d)`);
}

/** The parameters GET /admin/usage reads; any other is refused, naming it (a typo must not widen a bill). */
export const reportParams = ['since', 'until', 'group_by', 'key', 'model', 'provider', 'format'] as const;
export const reportFormats = ['json', 'csv'] as const;

/** Reads the query string of GET /admin/usage; `maxDays` bounds the range (the retention). */
export function parseReportQuery(
  q: Record<string, string | string[] | undefined>,
  now: number,
  maxDays: number,
): ReportQuery {
  for (const name of Object.keys(q))
    if (!(reportParams as readonly string[]).includes(name))
      throw invalid(
        name.slice(0, 64),
        `${name.slice(0, 64)}: not a parameter of /admin/usage (${reportParams.join(', ')})`,
      );
  const one = (name: string): string | undefined => {
    const v = q[name];
    return Array.isArray(v) ? v[v.length - 1] : v || undefined;
  };
  const format = one('format');
  if (format !== undefined && !(reportFormats as readonly string[]).includes(format))
    throw invalid('format', `format: '${format.slice(0, 64)}' is not one of ${reportFormats.join(', ')}`);
  const since = parseDay(one('since') ?? '30d', 'since', now);
  const until = parseDay(one('until') ?? 'today', 'until', now);
  if (since > until) throw invalid('since', `since: ${since} is after until (${until})`);
  if ((Date.parse(until) - Date.parse(since)) / dayMs >= maxDays + 1)
    throw invalid('since', `since: at most ${maxDays + 1} days (usage.retention_days) can be read at once`);
  const groupBy = (one('group_by') ?? 'key,model,provider,day').split(',').filter(Boolean) as Dimension[];
  const bad = groupBy.find((d) => !dimensions.includes(d));
  if (bad !== undefined) throw invalid('group_by', `group_by: '${bad}' is not one of ${dimensions.join(', ')}`);
  return {
    since,
    until,
    groupBy: [...new Set(groupBy)],
    key: one('key'),
    model: one('model'),
    provider: one('provider'),
  };
}

export async function buildReport(store: LedgerStore, q: ReportQuery): Promise<Report> {
  const rows = (await store.rows({ since: q.since, until: q.until, key: q.key })).filter(
    (r) => (q.model === undefined || r.model === q.model) && (q.provider === undefined || r.provider === q.provider),
  );
  const groups = new Map<string, UsageRow>();
  const total = emptyRow('', '', '', '');
  for (const r of rows) {
    const id = JSON.stringify(q.groupBy.map((d) => r[d]));
    let g = groups.get(id);
    if (!g) groups.set(id, (g = emptyRow(r.day, r.key, r.model, r.provider)));
    addTo(g, r);
    addTo(total, r);
  }
  const shape = (r: UsageRow, dims: Dimension[]): ReportRow => {
    const out = Object.fromEntries(dims.map((d) => [d, r[d]])) as unknown as ReportRow;
    for (const m of measures) out[m] = r[m];
    out.cost_usd = r.cost_nano / nanoPerUsd;
    return out;
  };
  const sorted = [...groups.values()].sort((a, b) => {
    for (const d of q.groupBy) if (a[d] !== b[d]) return a[d] < b[d] ? -1 : 1;
    return 0;
  });
  return {
    since: q.since,
    until: q.until,
    group_by: q.groupBy,
    rows: sorted.map((r) => shape(r, q.groupBy)),
    totals: shape(total, []),
  };
}

const csvCell = (v: unknown): string => {
  const s = String(v ?? '');
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function reportCsv(r: Report): string {
  const cols: string[] = [...r.group_by, ...measures, 'cost_usd'];
  const lines = [cols.join(',')];
  for (const row of r.rows) lines.push(cols.map((c) => csvCell((row as Record<string, unknown>)[c])).join(','));
  return `${lines.join('\n')}\n`;
}
