// Spend over time (GET /admin/usage?group_by=day,…): one uPlot line per key, model or workspace,
// by UTC day, with the totals of the range below. A workspace is its keys' sum (the ledger keeps
// keys; the keys API says which workspace each is in).
import uPlot from '../vendor/uplot.mjs';
import { api, query } from '../api.js';
import { useEffect, useRef, useState } from '../vendor/hooks.mjs';
import { ErrorBox, count, html, usd, useLoad } from '../ui.js';

const measures = {
  cost_usd: { label: 'Cost (USD)', of: (/** @type {any} */ r) => r.cost_usd },
  requests: { label: 'Requests', of: (/** @type {any} */ r) => r.requests },
  tokens: { label: 'Tokens (in + out)', of: (/** @type {any} */ r) => r.input_tokens + r.output_tokens },
};
const colours = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

/** @param {string} by @param {string} since */
async function loadSpend(by, since) {
  const dim = by === 'workspace' ? 'key' : by;
  const report = await api('GET', `/admin/usage${query({ group_by: `day,${dim}`, since })}`);
  /** @type {Map<string, string>} */
  const workspaceOf = new Map();
  if (by === 'workspace') {
    const keys = await api('GET', '/admin/keys?limit=500');
    for (const k of keys.data) workspaceOf.set(k.id, k.workspace);
  }
  const rows = report.rows.map((/** @type {any} */ r) => ({
    ...r,
    group: by === 'workspace' ? (workspaceOf.get(r.key) ?? `(key ${r.key})`) : r[dim],
  }));
  return { report, rows };
}

/** Every UTC day from `since` to `until` (YYYY-MM-DD), so a day without usage plots as 0. @param {string} since @param {string} until */
function daysOf(since, until) {
  const days = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Days × groups → uPlot's columns (x in seconds). @param {{ since: string, until: string }} range @param {any[]} rows @param {(r: any) => number} of */
function columns(range, rows, of) {
  const days = daysOf(range.since, range.until);
  const groups = [...new Set(rows.map((r) => r.group))].sort();
  const cells = new Map(groups.map((g) => [g, new Array(days.length).fill(0)]));
  for (const r of rows) /** @type {number[]} */ (cells.get(r.group))[days.indexOf(r.day)] += of(r);
  const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  return { groups, data: [xs, ...groups.map((g) => cells.get(g))] };
}

/** @param {{ range: { since: string, until: string }, rows: any[], measure: keyof typeof measures }} p */
function Chart({ range, rows, measure }) {
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  useEffect(() => {
    const el = box.current;
    if (!el || rows.length === 0) return;
    const { groups, data } = columns(range, rows, measures[measure].of);
    const chart = new uPlot(
      {
        width: Math.max(480, el.clientWidth || 900),
        height: 320,
        scales: { x: { time: true } },
        series: [
          { label: 'Day (UTC)' },
          ...groups.map((g, i) => ({ label: g, stroke: colours[i % colours.length], width: 2, points: { size: 7 } })),
        ],
        axes: [{}, { label: measures[measure].label, size: 70 }],
      },
      /** @type {any} */ (data),
      el,
    );
    return () => chart.destroy();
  }, [range, rows, measure]);
  return html`<div class="chart" ref=${box}></div>`;
}

/** The range's sum per group. @param {{ rows: any[] }} p */
function Totals({ rows }) {
  /** @type {Map<string, { requests: number, tokens: number, cost: number }>} */
  const sums = new Map();
  for (const r of rows) {
    const s = sums.get(r.group) || { requests: 0, tokens: 0, cost: 0 };
    s.requests += r.requests;
    s.tokens += r.input_tokens + r.output_tokens;
    s.cost += r.cost_usd;
    sums.set(r.group, s);
  }
  return html`<table>
    <thead>
      <tr>
        <th>Group</th>
        <th>Requests</th>
        <th>Tokens</th>
        <th>Cost</th>
      </tr>
    </thead>
    <tbody>
      ${[...sums].map(
        ([g, s]) =>
          html`<tr data-group=${g}>
            <td>${g}</td>
            <td class="num">${count(s.requests)}</td>
            <td class="num">${count(s.tokens)}</td>
            <td class="num">${usd(s.cost)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function SpendPage() {
  const [by, setBy] = useState('key');
  const [since, setSince] = useState('30d');
  const [measure, setMeasure] = useState(/** @type {keyof typeof measures} */ ('cost_usd'));
  const { data, error, reload } = useLoad(() => loadSpend(by, since), [by, since]);
  /** @param {(v: any) => void} set */
  const pick = (set) => (/** @type {any} */ e) => set(e.currentTarget.value);
  return html`<section>
    <div class="controls">
      <label
        >By
        <select name="by" value=${by} onChange=${pick(setBy)}>
          <option value="key">key</option>
          <option value="model">model</option>
          <option value="workspace">workspace</option>
          <option value="provider">provider</option>
        </select></label
      >
      <label
        >Range
        <select name="since" value=${since} onChange=${pick(setSince)}>
          <option value="7d">7 days</option>
          <option value="30d">30 days</option>
          <option value="90d">90 days</option>
        </select></label
      >
      <label
        >Show
        <select name="measure" value=${measure} onChange=${pick(setMeasure)}>
          ${Object.entries(measures).map(([k, m]) => html`<option value=${k}>${m.label}</option>`)}
        </select></label
      >
      <button onClick=${reload}>Refresh</button>
    </div>
    <${ErrorBox} error=${error} />
    ${data && data.rows.length === 0 ? html`<p class="hint">No usage in this range.</p>` : null}
    ${data && data.rows.length > 0 ? html`<${Chart} range=${data.report} rows=${data.rows} measure=${measure} />` : null}
    ${data && html`<${Totals} rows=${data.rows} />`}
  </section>`;
}
