// Vertex AI as an upstream (issue #26, docs/providers.md "Vertex AI"): every client family, through
// its official SDK, reaches Claude (rawPredict / streamRawPredict) and Gemini (generateContent /
// streamGenerateContent) on the Vertex emulator, with a token polygate obtained through
// google-auth-library from a service-account key (JWT verified by the emulator's token endpoint)
// and reused while valid; streamed and not, with a tool round trip; a key the token endpoint
// refuses is a 502 naming the provider; usage reaches the ledger; no token or key in logs.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { everyFamilyReaches, refusedInEveryFamily } from './cloud-cases.ts';
import { cloudGateway, listsModels, metricsOf, pricedInLedger, secretsNowhere } from './cloud-gateway.ts';
import { vertexAt } from './cloud-providers.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

const emu = await startVertexUpstream();
t.teardown(() => emu.close());
t.teardown(redirectGoogleTokens(`${emu.url}/token`));
const { app, drivers } = await cloudGateway(t, {
  providers: {
    vx: { ...vertexAt(emu), credentials_file: emu.keyFile },
    'vx-global': { ...vertexAt(emu, 'global'), credentials_file: emu.keyFile },
    'vx-bad': { ...vertexAt(emu), credentials_file: emu.wrongKeyFile },
  },
  models: modelRoutes({
    'm-vx-claude': 'vx/claude-sonnet-4-5@20250929',
    'm-vx-gemini': 'vx-global/gemini-2.5-flash',
    'm-vx-bad': 'vx-bad/gemini-2.5-flash',
  }),
  prices: { 'm-vx-claude': { input: 3, output: 15 } },
});
const paths: Record<string, (stream: boolean) => string> = {
  'm-vx-claude': (s) =>
    `/v1/projects/${emu.project}/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:${s ? 'streamRawPredict' : 'rawPredict'}`,
  'm-vx-gemini': (s) =>
    `/v1/projects/${emu.project}/locations/global/publishers/google/models/gemini-2.5-flash:${s ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
};

everyFamilyReaches(t, {
  emu,
  drivers,
  cloud: 'Vertex',
  models: Object.keys(paths),
  arrived(t, got, model, stream) {
    t.equal(got.path, paths[model](stream));
    t.match(String(got.headers.authorization), /^Bearer ya29\.emulator-/);
    if (model === 'm-vx-claude') {
      t.match(got.body, { anthropic_version: 'vertex-2023-10-16' });
      t.notOk('model' in (got.body as Record<string, unknown>), 'no model in the body');
    }
  },
});

t.test('the access token is fetched once per credential and reused while valid', async (t) => {
  // Two providers with key files (vx and vx-global): one token each, whatever the number of calls.
  t.ok(emu.tokenRequests() <= 3, `token requests: ${emu.tokenRequests()}`);
});

t.test('a key the token endpoint refuses: a 502 naming the provider in every family', async (t) => {
  const pem = (JSON.parse(readFileSync(emu.wrongKeyFile, 'utf8')) as { private_key: string }).private_key;
  await refusedInEveryFamily(t, drivers, 'm-vx-bad', /provider 'vx-bad' could not get a Google access token/, {
    'no key material': pem.split('\n')[1],
  });
});

t.test('the ledger, the metrics, /v1/models; no token or key in the log', async (t) => {
  await listsModels(t, app, Object.keys(paths));
  await pricedInLedger(t, app, ['vx']);
  const metrics = await metricsOf(app);
  t.match(metrics, /polygate_provider_enabled\{provider="vx",type="vertex"\} 1/);
  await secretsNowhere(t, app, [/ya29\.emulator-/, /BEGIN PRIVATE KEY/]);
});
