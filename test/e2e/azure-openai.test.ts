// Azure OpenAI as an upstream (issue #26, docs/providers.md "Azure OpenAI"): every client family,
// through its official SDK, reaches Chat Completions on a deployment path and Responses with an
// api-version, the v1 API, and an Entra ID bearer, streamed and not, with a tool round trip; a
// Chat or Responses client is relayed to Azure's own path. Usage reaches the ledger, the models
// are listed, and the resource's key is in no log line, metric or error.
import t from 'tap';
import { azureDefaults, startAzureOpenAIUpstream } from '../emulators/azure-openai-upstream.ts';
import { everyFamilyReaches, refusedInEveryFamily } from './cloud-cases.ts';
import { cloudGateway, listsModels, metricsOf, pricedInLedger, secretsNowhere } from './cloud-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

const emu = await startAzureOpenAIUpstream();
t.teardown(() => emu.close());
const wrongKey = 'azure-wrong-key-9876543210';
const base = { type: 'azure-openai', base_url: emu.url };
const { app, drivers } = await cloudGateway(t, {
  providers: {
    'az-chat': { ...base, api: 'chat_completions', api_version: '2024-10-21', api_key: azureDefaults.apiKey },
    'az-resp': { ...base, api: 'responses', api_version: '2025-03-01-preview', api_key: azureDefaults.apiKey },
    'az-v1': { ...base, api: 'chat_completions', api_key: azureDefaults.apiKey },
    'az-entra': { ...base, api: 'responses', auth: 'bearer', api_key: azureDefaults.bearerToken },
    'az-bad': { ...base, api: 'chat_completions', api_version: '2024-10-21', api_key: wrongKey },
  },
  models: modelRoutes({
    'm-az-chat': 'az-chat/gpt-4o-deploy',
    'm-az-resp': 'az-resp/gpt-5-deploy',
    'm-az-v1': 'az-v1/gpt-4o-deploy',
    'm-az-entra': 'az-entra/gpt-5-deploy',
    'm-az-bad': 'az-bad/gpt-4o-deploy',
  }),
  prices: { 'm-az-chat': { input: 2.5, output: 10 }, 'm-az-resp': { input: 1.25, output: 10 } },
});

/** Where each model's requests must arrive on the resource, and how they are authenticated. */
const expected: Record<string, { path: string; auth: 'api-key' | 'bearer' }> = {
  'm-az-chat': { path: '/openai/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21', auth: 'api-key' },
  'm-az-resp': { path: '/openai/responses?api-version=2025-03-01-preview', auth: 'api-key' },
  'm-az-v1': { path: '/openai/v1/chat/completions', auth: 'api-key' },
  'm-az-entra': { path: '/openai/v1/responses', auth: 'bearer' },
};

everyFamilyReaches(t, {
  emu,
  drivers,
  cloud: 'Azure',
  models: Object.keys(expected),
  arrived(t, got, model) {
    const want = expected[model];
    t.equal(got.path, want.path, 'Azure path');
    if (want.auth === 'api-key') {
      t.equal(got.headers['api-key'], azureDefaults.apiKey, 'api-key header');
      t.notOk(got.headers.authorization, 'no bearer besides');
    } else {
      t.equal(got.headers.authorization, `Bearer ${azureDefaults.bearerToken}`, 'Entra ID bearer');
      t.notOk(got.headers['api-key'], 'no api-key besides');
    }
  },
});

t.test('a wrong key: a 502 naming the provider in every family, the key in no answer', async (t) => {
  await refusedInEveryFamily(t, drivers, 'm-az-bad', /provider 'az-bad' rejected polygate's credentials/, {
    'not the wrong key': wrongKey,
    "the upstream's own text is not relayed": 'Access denied',
  });
});

t.test('/v1/models lists the Azure models', async (t) => {
  await listsModels(t, app, Object.keys(expected));
});

t.test('usage and cost in the ledger, the type in the metrics, keys nowhere', async (t) => {
  await pricedInLedger(t, app, ['az-chat', 'az-resp']);
  const metrics = await metricsOf(app);
  t.match(metrics, /polygate_provider_enabled\{provider="az-chat",type="azure-openai"\} 1/);
  t.match(metrics, /provider="az-resp"/);
  await secretsNowhere(t, app, [azureDefaults.apiKey, azureDefaults.bearerToken, wrongKey]);
});
