// Issue #23 item 7: the Spend board's "in range" panels use increase(), which cannot see a
// counter's first sample as an increase. Spend and unpriced series used to appear at their first
// increment, so a short burst read $0 and 0 unpriced requests. polygate now creates them at zero
// for the config's keys, priced models and providers at start (and on reload): a real Prometheus
// scrapes the gateway before and after a burst, and the board's own queries show the burst.
import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';
import { loadDashboards, panelQueries } from './dashboards.ts';
import { scrapeConfig, startPrometheus, waitFor } from './prometheus.ts';

const chat = await startOpenAIChatUpstream();
t.teardown(() => chat.close());
const gw = await startInProcessGateway(
  testConfig({
    providers: { oai: { type: 'openai', base_url: chat.url, api_key: 'sk-up-chat', api: 'chat_completions' } },
    models: {
      priced: { routes: [{ provider: 'oai', model: 'gpt-up' }] },
      unpriced: { routes: [{ provider: 'oai', model: 'gpt-other' }] },
    },
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50, prices: { models: { priced: { input: 3, output: 15 } } } },
  }),
);
t.teardown(() => gw.stop());
const prom = await startPrometheus(scrapeConfig(`127.0.0.1:${gw.port}`));
t.teardown(() => prom.stop());

const spend = loadDashboards().find((d) => d.file === 'spend.json');
if (!spend) throw new Error('grafana/dashboards/spend.json is missing');
const queries = panelQueries(spend);
const exprOf = (panel: string): string => {
  const q = queries.find((x) => x.panel === panel);
  if (!q) throw new Error(`no panel '${panel}' on the Spend board`);
  return q.expr;
};
const scalar = async (expr: string): Promise<number> => {
  const r = await prom.query(expr);
  return Number(r.data?.result[0]?.value?.[1] ?? 0);
};
/** Waits for two more scrapes of the gateway, so Prometheus has a sample from after `now`. */
async function scrapedSince(now: number): Promise<void> {
  await waitFor(
    async () => {
      const r = await prom.query('timestamp(up{job="polygate"})');
      const at = Number(r.data?.result[0]?.value?.[1] ?? 0) * 1000;
      return at > now + 1000;
    },
    () => `prometheus did not scrape the gateway:\n${prom.output()}`,
  );
}

t.test('a burst right after the first scrape shows on the Spend board', async (t) => {
  // A scrape of the quiet gateway first: what an operator's Prometheus has before the burst.
  await scrapedSince(Date.now() - 1000);
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  for (let i = 0; i < 3; i++) {
    await openai.chat.completions.create({ model: 'priced', messages: [{ role: 'user', content: `priced ${i}` }] });
    await openai.chat.completions.create({ model: 'unpriced', messages: [{ role: 'user', content: `free ${i}` }] });
  }
  const ledger = (await usage(gw, 'group_by=model&model=priced&since=1d')).rows[0];
  t.ok(ledger.cost_nano > 0, `the ledger has $${ledger.cost_usd}`);
  await scrapedSince(Date.now());
  const inRange = await scalar(exprOf('Spend in range'));
  // increase() extrapolates past the last sample to the range's end (by up to a scrape interval
  // here); it never goes below the zero the series started at.
  t.ok(
    inRange >= ledger.cost_usd * 0.99 && inRange < ledger.cost_usd * 1.5,
    `"Spend in range" reads $${inRange}, the ledger $${ledger.cost_usd}`,
  );
  const unpriced = await scalar(exprOf('Unpriced requests in range'));
  t.ok(unpriced >= 3 && unpriced < 4.5, `"Unpriced requests in range" counts the burst (${unpriced})`);
  const byKey = await prom.query(exprOf('Spend in range by key and model'));
  const cell = byKey.data?.result.find((r) => r.metric.key === 'test' && r.metric.model === 'priced');
  t.ok(Number(cell?.value?.[1]) >= ledger.cost_usd * 0.99, `by key and model: $${cell?.value?.[1]}`);
});
