// Searches polygate runs are priced into the request's cost in the usage ledger
// (hosted_tools.price_per_search_usd, docs/hosted-tools.md), read back through the admin API.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startSearchWeb } from '../emulators/search-web.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';

const web = await startSearchWeb();
t.teardown(() => web.close());
const { app, up } = await inProcessWithEmulators(t, {
  upstreams: { oai: 'chat' },
  models: { 'claude-hosted': { routes: [{ provider: 'oai', model: 'gpt-upstream-1', hosted_tools: 'run' }] } },
  config: {
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50 },
    search_backends: { local: { kind: 'searxng', url: `${web.url}/search` } },
    hosted_tools: { search_backend: 'local', price_per_search_usd: 0.01 },
  },
});

t.test('two searches at $0.01 cost 20,000,000 nano-dollars on an unpriced model', async (t) => {
  up.oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"a"}', id: 'l1' },
    { kind: 'tool', name: 'web_search', args: '{"query":"b"}', id: 'l2' },
    { kind: 'text', text: 'done' },
  );
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: app.url, maxRetries: 0 });
  const msg = await client.messages.create({
    model: 'claude-hosted',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'q' }],
    tools: [{ type: 'web_search_20250305', name: 'web_search' }],
  });
  t.match(msg.usage, { server_tool_use: { web_search_requests: 2 } });
  const report = await waitFor('the request in the ledger', async () => {
    const r = await usage({ url: app.url } as never, 'group_by=model');
    return r.totals.requests >= 1 ? r : undefined;
  });
  t.equal(report.totals.cost_nano, 20_000_000);
  t.equal(report.totals.web_search_requests, 2, 'the ledger counts both searches');
  t.ok(Number(report.totals.input_tokens) > 0, 'the tokens of all three upstream calls are counted');
});
