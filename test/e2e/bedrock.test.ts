// Claude on Amazon Bedrock as an upstream (issue #26, docs/providers.md "Bedrock"): every client
// family, through its official SDK, reaches the Bedrock emulator, which verifies each request's
// SigV4 signature; streamed and not, with a tool round trip and thinking (signature kept for the
// next turn); model ids with `:` and inference-profile ARNs in the path; credentials static, with
// a session token, or from the default chain (environment); a wrong secret is a 502 naming the
// provider; usage reaches the ledger; the secret is in no log line, metric or answer.
import t from 'tap';
import { bedrockCredentials, startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { everyFamilyReaches, refusedInEveryFamily } from './cloud-cases.ts';
import { cloudGateway, lastRequest, listsModels, metricsOf, pricedInLedger, secretsNowhere } from './cloud-gateway.ts';
import { bedrockAt, bedrockSigned } from './cloud-providers.ts';
import { thinkingText } from './matrix/fixtures.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
const emu = await startBedrockUpstream();
t.teardown(() => emu.close());
// The default chain reads the environment first.
process.env.AWS_ACCESS_KEY_ID = bedrockCredentials.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = bedrockCredentials.secretAccessKey;
const wrongSecret = 'wrong/Bedrock+Secret/000000000000000000000';
const sessionToken = 'FwoGZXIvYXdzEXAMPLEsessiontoken0123456789';
const claude = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const { app, drivers } = await cloudGateway(t, {
  providers: {
    br: bedrockSigned(emu),
    'br-session': { ...bedrockSigned(emu), session_token: sessionToken },
    'br-chain': bedrockAt(emu),
    'br-bad': { ...bedrockSigned(emu), secret_access_key: wrongSecret },
  },
  models: {
    ...modelRoutes({
      'm-br': `br/${claude}`,
      'm-br-arn': `br-session/${arn}`,
      'm-br-chain': `br-chain/${claude}`,
      'm-br-bad': `br-bad/${claude}`,
    }),
    // A single route retries only when it opts in (docs/resilience.md).
    'm-br-retry': {
      routes: [{ provider: 'br', model: claude, retries: { max_retries: 1, base_delay_ms: 1, max_delay_ms: 1 } }],
    },
  },
  prices: { 'm-br': { input: 3, output: 15 } },
});
const models = ['m-br', 'm-br-arn', 'm-br-chain'];

everyFamilyReaches(t, {
  emu,
  drivers,
  cloud: 'Bedrock',
  models,
  toolModels: ['m-br'],
  arrived(t, got, model, stream) {
    const id = model === 'm-br-arn' ? arn : claude;
    t.equal(got.path, `/model/${encodeURIComponent(id)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`);
    const body = got.body as Json;
    t.equal(body.anthropic_version, 'bedrock-2023-05-31');
    t.notOk('model' in body || 'stream' in body, 'no model or stream in the body');
    t.match(
      String(got.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKEMULATOR1\/\d{8}\/us-east-1\/bedrock\//,
    );
    if (model === 'm-br-arn') t.equal(got.headers['x-amz-security-token'], sessionToken);
    else t.notOk(got.headers['x-amz-security-token']);
  },
});

t.test('thinking: a Messages client gets it with its signature, which goes back next turn', async (t) => {
  emu.reset();
  const messages = drivers[0];
  emu.script({ kind: 'thinking', thinking: thinkingText, signature: 'sig-bedrock-123==', text: 'Forty-two.' });
  const out = await messages.reasoning('m-br', 'think');
  t.equal(out.thinking, thinkingText);
  t.equal(out.token, 'sig-bedrock-123==');
  t.match(lastRequest(emu).body, { thinking: { type: 'enabled' } });
  emu.script({ kind: 'text', text: 'again' });
  await messages.reasoningContinue('m-br', out, 'more');
  t.match(lastRequest(emu).raw, 'sig-bedrock-123==', 'the signature reached Bedrock again');
});

t.test('a wrong secret: a 502 naming the provider in every family, no secret in the answer', async (t) => {
  await refusedInEveryFamily(t, drivers, 'm-br-bad', /provider 'br-bad' rejected polygate's credentials/, {
    'not the wrong secret': wrongSecret,
    "AWS's own text is not relayed": 'signature we calculated',
  });
});

t.test("Bedrock's ThrottlingException is retried where the route allows, else a rate limit", async (t) => {
  emu.reset();
  emu.script({ kind: 'error', status: 429 }, { kind: 'text', text: 'after a retry' });
  const out = await drivers[1].text('m-br-retry', 'terse', 'hi');
  t.equal(out.text, 'after a retry');
  t.equal(emu.requests.length, 2, 'the ThrottlingException was retried');
  emu.script({ kind: 'error', status: 429 });
  const err = await drivers[0].error('m-br');
  t.equal(err.status, 429);
  t.equal(drivers[0].errorWord(err.body), 'rate_limit_error');
});

t.test('/v1/models, the ledger, the metrics; the secrets nowhere', async (t) => {
  await listsModels(t, app, models);
  await pricedInLedger(t, app, ['br']);
  const metrics = await metricsOf(app);
  t.match(metrics, /polygate_provider_enabled\{provider="br",type="bedrock"\} 1/);
  t.match(metrics, /polygate_circuit_breaker_state\{provider="br"\}/);
  await secretsNowhere(t, app, [bedrockCredentials.secretAccessKey, wrongSecret, sessionToken]);
});
