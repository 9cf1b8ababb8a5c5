// The shipped Grafana boards as the tests read them: every panel (rows' nested panels included),
// every PromQL target, and the expression Grafana would send once its variables are filled in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/start-gateway.ts';

export const grafanaDir = join(repoRoot, 'grafana');
export const dashboardsDir = join(grafanaDir, 'dashboards');

export type Target = { refId?: string; expr?: string; hide?: boolean; datasource?: { type?: string; uid?: string } };
export type Panel = {
  id?: number;
  type?: string;
  title?: string;
  description?: string;
  gridPos?: Record<string, number>;
  datasource?: unknown;
  targets?: Target[];
  panels?: Panel[];
};
export type Variable = {
  name: string;
  type: string;
  query?: unknown;
  definition?: string;
  includeAll?: boolean;
  allValue?: string;
  datasource?: unknown;
};
export type Dashboard = {
  file: string;
  json: {
    uid?: string;
    title?: string;
    schemaVersion?: unknown;
    panels?: Panel[];
    templating?: { list?: Variable[] };
    __inputs?: unknown;
  };
};

export function loadDashboards(): Dashboard[] {
  return readdirSync(dashboardsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, json: JSON.parse(readFileSync(join(dashboardsDir, file), 'utf8')) as Dashboard['json'] }));
}

/** Top-level panels and the panels inside rows, in order. */
export function allPanels(d: Dashboard): Panel[] {
  return (d.json.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
}

export type PanelQuery = { board: string; panel: string; refId: string; expr: string };

/** Every visible PromQL target of every panel, variables substituted. */
export function panelQueries(d: Dashboard): PanelQuery[] {
  const vars = d.json.templating?.list ?? [];
  return allPanels(d).flatMap((p) =>
    (p.targets ?? [])
      .filter((t) => t.expr && !t.hide)
      .map((t) => ({
        board: d.json.title ?? d.file,
        panel: p.title ?? `panel ${p.id}`,
        refId: t.refId ?? '?',
        expr: substitute(String(t.expr), vars),
      })),
  );
}

/**
 * What Grafana puts in place of its variables: "All" of a multi-value variable is its allValue,
 * and the built-in intervals get values that fit a 1 s scrape and a run shorter than a minute.
 */
const builtins: Record<string, string> = {
  __rate_interval: '1m',
  __interval: '15s',
  __range: '5m',
  __range_s: '300',
  __interval_ms: '15000',
};

export function substitute(expr: string, vars: Variable[]): string {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]/g, (whole, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    if (name in builtins) return builtins[name];
    const v = vars.find((x) => x.name === name);
    if (!v) throw new Error(`unknown variable ${whole} in: ${expr}`);
    if (v.includeAll && v.allValue !== undefined) return v.allValue;
    throw new Error(`variable ${whole} has no "All" value to test with`);
  });
}

/** `label_values(metric, label)` of a query variable, as metric and label. */
export function labelValuesQuery(v: Variable): { metric: string; label: string } | undefined {
  const q =
    typeof v.query === 'string' ? v.query : ((v.query as { query?: string } | undefined)?.query ?? v.definition ?? '');
  const m = /^label_values\(\s*([a-zA-Z_:][\w:]*)\s*,\s*(\w+)\s*\)$/.exec(q.trim());
  return m ? { metric: m[1], label: m[2] } : undefined;
}
