// The shipped Grafana files load as they are: dashboards with unique panel ids, a schema version
// Grafana reads, every query on the $datasource variable; provisioning files Grafana accepts; and a
// Prometheus scrape config that promtool passes. (grafana-panels.test.ts runs the queries.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { allPanels, grafanaDir, labelValuesQuery, loadDashboards, panelQueries } from './dashboards.ts';
import { promtool } from './prometheus.ts';

const boards = loadDashboards();

t.test('the five boards ship: overview, translation paths, upstream health, tasks and callbacks, spend', async (t) => {
  t.same(
    boards.map((b) => b.file),
    ['overview.json', 'spend.json', 'tasks-and-callbacks.json', 'translation-paths.json', 'upstream-health.json'],
  );
  const uids = boards.map((b) => b.json.uid);
  t.equal(new Set(uids).size, uids.length, 'dashboard uids are unique');
});

for (const board of boards) {
  t.test(board.file, async (t) => {
    const d = board.json;
    t.type(d.uid, 'string');
    t.ok((d.uid ?? '').length <= 40, "uid fits Grafana's 40 characters");
    t.type(d.title, 'string');
    // Grafana 10.x/11.x/12.x write schema versions 36 to 41 and migrate anything older on load.
    t.ok(
      Number.isInteger(d.schemaVersion) && Number(d.schemaVersion) >= 36 && Number(d.schemaVersion) <= 41,
      `schemaVersion ${String(d.schemaVersion)} is one Grafana reads`,
    );
    t.equal(d.__inputs, undefined, 'no export-time __inputs: file provisioning loads the JSON as it is');

    const panels = allPanels(board);
    const ids = panels.map((p) => p.id);
    t.ok(
      ids.every((id) => Number.isInteger(id)),
      'every panel has an integer id',
    );
    t.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    for (const p of panels) {
      t.ok(
        p.gridPos && p.gridPos.w > 0 && p.gridPos.w <= 24 && p.gridPos.h > 0,
        `${p.title}: a place on the 24-column grid`,
      );
      if (p.type === 'row') continue;
      t.ok(p.description && p.description.length > 20, `${p.title}: says what it shows`);
      t.ok((p.targets ?? []).length > 0, `${p.title}: has queries`);
      for (const target of p.targets ?? []) {
        t.same(
          target.datasource,
          { type: 'prometheus', uid: '${datasource}' },
          `${p.title} ${target.refId}: queries the chosen data source`,
        );
        t.match(target.expr, /polygate_/, `${p.title} ${target.refId}: reads a polygate metric`);
      }
    }

    const vars = d.templating?.list ?? [];
    const ds = vars.find((v) => v.name === 'datasource');
    t.equal(ds?.type, 'datasource', 'a datasource variable');
    t.equal(ds?.query, 'prometheus', 'listing Prometheus data sources');
    for (const v of vars.filter((x) => x.type === 'query')) {
      t.ok(labelValuesQuery(v), `variable ${v.name}: a label_values() query`);
      t.equal(v.allValue, '.*', `variable ${v.name}: "All" matches every value`);
    }
    // Substitution throws on a variable the board does not define.
    t.ok(panelQueries(board).length > 0, 'every query uses only defined variables');
  });
}

t.test('provisioning files name the Prometheus data source and the dashboards folder', async (t) => {
  const ds = parse(readFileSync(join(grafanaDir, 'provisioning/datasources/polygate-prometheus.yaml'), 'utf8')) as {
    apiVersion: number;
    datasources: Array<Record<string, unknown>>;
  };
  t.equal(ds.apiVersion, 1);
  t.match(ds.datasources, [{ type: 'prometheus', access: 'proxy', isDefault: true, url: /^https?:\/\// }]);
  const dash = parse(readFileSync(join(grafanaDir, 'provisioning/dashboards/polygate.yaml'), 'utf8')) as {
    apiVersion: number;
    providers: Array<{ type: string; options: { path: string } }>;
  };
  t.equal(dash.apiVersion, 1);
  t.equal(dash.providers[0].type, 'file');
  t.match(dash.providers[0].options.path, /^\//, 'an absolute path Grafana reads the JSON files from');
});

t.test('promtool accepts the example scrape config', async (t) => {
  const r = promtool('check', 'config', join(grafanaDir, 'prometheus.yml'));
  t.equal(r.code, 0, r.output);
  t.match(r.output, /SUCCESS/);
});
