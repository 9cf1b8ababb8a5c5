// Azure OpenAI as an upstream (issue #26, docs/providers.md "Azure OpenAI"): every client family,
// through its official SDK, reaches Chat Completions on a deployment path and Responses with an
// api-version, the v1 API, and an Entra ID bearer, streamed and not, with a tool round trip; a
// Chat or Responses client is relayed to Azure's own path. Usage reaches the ledger, the models
// are listed, and the resource's key is in no log line, metric or error.
import t from 'tap';
import { azureDefaults, startAzureOpenAIUpstream } from '../emulators/azure-openai-upstream.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';
import { chatDriver } from './matrix/drivers/chat-driver.ts';
import type { Driver } from './matrix/drivers/driver.ts';
import { geminiDriver } from './matrix/drivers/gemini-driver.ts';
import { messagesDriver } from './matrix/drivers/messages-driver.ts';
import { responsesDriver } from './matrix/drivers/responses-driver.ts';
import { toolArgPieces, toolArgs, weatherTool } from './matrix/fixtures.ts';

const emu = await startAzureOpenAIUpstream();
t.teardown(() => emu.close());
const wrongKey = 'azure-wrong-key-9876543210';
const base = { type: 'azure-openai', base_url: emu.url };
const app = await startInProcessApp(
  t,
  testConfig({
    providers: {
      'az-chat': { ...base, api: 'chat_completions', api_version: '2024-10-21', api_key: azureDefaults.apiKey },
      'az-resp': { ...base, api: 'responses', api_version: '2025-03-01-preview', api_key: azureDefaults.apiKey },
      'az-v1': { ...base, api: 'chat_completions', api_key: azureDefaults.apiKey },
      'az-entra': { ...base, api: 'responses', auth: 'bearer', api_key: azureDefaults.bearerToken },
      'az-bad': { ...base, api: 'chat_completions', api_version: '2024-10-21', api_key: wrongKey },
    },
    models: {
      'm-az-chat': { routes: [{ provider: 'az-chat', model: 'gpt-4o-deploy' }] },
      'm-az-resp': { routes: [{ provider: 'az-resp', model: 'gpt-5-deploy' }] },
      'm-az-v1': { routes: [{ provider: 'az-v1', model: 'gpt-4o-deploy' }] },
      'm-az-entra': { routes: [{ provider: 'az-entra', model: 'gpt-5-deploy' }] },
      'm-az-bad': { routes: [{ provider: 'az-bad', model: 'gpt-4o-deploy' }] },
    },
    admin: { token: ADMIN_TOKEN },
    usage: {
      flush_interval_ms: 50,
      prices: { models: { 'm-az-chat': { input: 2.5, output: 10 }, 'm-az-resp': { input: 1.25, output: 10 } } },
    },
  }),
);
const drivers: Driver[] = [
  messagesDriver(app.url, TEST_KEY),
  chatDriver(app.url, TEST_KEY),
  responsesDriver(app.url, TEST_KEY),
  geminiDriver(app.url, TEST_KEY),
];
const last = (): (typeof emu.requests)[number] => emu.requests[emu.requests.length - 1];

/** Where each model's requests must arrive on the resource, and how they are authenticated. */
const expected: Record<string, { path: string; auth: 'api-key' | 'bearer' }> = {
  'm-az-chat': { path: '/openai/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21', auth: 'api-key' },
  'm-az-resp': { path: '/openai/responses?api-version=2025-03-01-preview', auth: 'api-key' },
  'm-az-v1': { path: '/openai/v1/chat/completions', auth: 'api-key' },
  'm-az-entra': { path: '/openai/v1/responses', auth: 'bearer' },
};

function arrivedAsAzure(t: Tap, model: string): void {
  const got = last();
  const want = expected[model];
  t.equal(got.path, want.path, 'Azure path');
  if (want.auth === 'api-key') {
    t.equal(got.headers['api-key'], azureDefaults.apiKey, 'api-key header');
    t.notOk(got.headers.authorization, 'no bearer besides');
  } else {
    t.equal(got.headers.authorization, `Bearer ${azureDefaults.bearerToken}`, 'Entra ID bearer');
    t.notOk(got.headers['api-key'], 'no api-key besides');
  }
}
type Tap = Pick<typeof t, 'equal' | 'notOk'>;

for (const d of drivers) {
  t.test(`client ${d.family}`, async (t) => {
    for (const model of Object.keys(expected)) {
      t.test(model, async (t) => {
        t.beforeEach(() => emu.reset());
        t.test('text', async (t) => {
          emu.script({ kind: 'text', text: 'hello from azure' });
          const out = await d.text(model, 'terse', 'hi');
          t.equal(out.text, 'hello from azure');
          t.equal(out.finish, d.stopWords.stop);
          t.ok(out.usage.input > 0 && out.usage.output > 0, 'usage reached the client');
          arrivedAsAzure(t, model);
        });
        t.test('stream', async (t) => {
          emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
          const out = await d.stream(model, 'count');
          t.equal(out.text, 'one two three');
          t.ok(out.deltas.length > 1, 'arrived in pieces');
          arrivedAsAzure(t, model);
        });
        t.test('tool round trip', async (t) => {
          emu.script({ kind: 'tool', name: weatherTool.name, args: toolArgs, argChunks: toolArgPieces });
          const call = await d.toolCall(model, 'weather in Paris?', weatherTool);
          t.equal(call.finish, d.stopWords.tool);
          t.same(call.call.args, JSON.parse(toolArgs));
          emu.script({ kind: 'text', text: 'Sunny.' });
          const next = await d.toolResultTurn(model, call, weatherTool, 'sunny, 21C');
          t.equal(next.text, 'Sunny.');
          t.match(last().raw, 'sunny, 21C', 'the tool result reached Azure');
        });
      });
    }
  });
}

t.test('a wrong key: a 502 naming the provider in every family, the key in no answer', async (t) => {
  for (const d of drivers) {
    const out = await d.error('m-az-bad');
    t.equal(out.status, 502, d.family);
    // Gemini's own shape, with the 502 (gRPC's HTTP mapping reads it as UNAVAILABLE).
    if (d.family === 'gemini') t.match(out.body, { error: { code: 502, status: 'UNAVAILABLE' } });
    const text = JSON.stringify(out.body);
    t.match(text, /provider 'az-bad' rejected polygate's credentials/, d.family);
    t.notMatch(text, wrongKey);
    t.notMatch(text, 'Access denied', "the upstream's own text is not relayed");
  }
});

t.test('/v1/models lists the Azure models', async (t) => {
  const res = await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
  for (const m of Object.keys(expected)) t.ok(ids.includes(m), m);
});

t.test('usage and cost in the ledger, the type in the metrics, keys nowhere', async (t) => {
  let rows: Awaited<ReturnType<typeof usage>>['rows'] = [];
  const gw = { url: app.url } as Gateway;
  for (
    let i = 0;
    i < 50 && !(rows.some((r) => r.provider === 'az-chat') && rows.some((r) => r.provider === 'az-resp'));
    i++
  ) {
    await new Promise((r) => setTimeout(r, 100));
    rows = (await usage(gw, 'group_by=provider')).rows;
  }
  for (const p of ['az-chat', 'az-resp']) {
    const row = rows.find((r) => r.provider === p);
    t.ok(row && Number(row.input_tokens) > 0 && Number(row.output_tokens) > 0, `${p}: tokens`);
    t.ok(row && row.cost_nano > 0, `${p}: cost`);
  }
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /polygate_provider_enabled\{provider="az-chat",type="azure-openai"\} 1/);
  t.match(metrics, /provider="az-resp"/);
  const logs = JSON.stringify(app.logs());
  for (const secret of [azureDefaults.apiKey, azureDefaults.bearerToken, wrongKey]) {
    t.notMatch(metrics, secret, 'not in the metrics');
    t.notMatch(logs, secret, 'not in the log');
  }
});
