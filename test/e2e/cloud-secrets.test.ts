// Cloud credentials never leave polygate (issue #26, docs/providers.md; docs/security.md): for each
// cloud kind (Bedrock static keys with a session token and a Bedrock API key, Vertex with a service-account key and the
// access token it is exchanged for, Azure OpenAI with an api-key, with an Entra ID bearer, and with
// Entra ID tokens polygate fetches with a client secret) a
// traced request that succeeds, streamed and not, and one with a wrong credential (a 502 naming
// the provider), all with every span exported (sample ratio 1); then no secret is in the exported
// spans (the raw OTLP bodies: attributes, events, status messages), the log, /metrics, or any
// answer's body and headers the client got.
import { readFileSync } from 'node:fs';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import t from 'tap';
import { azureDefaults, startAzureOpenAIUpstream } from '../emulators/azure-openai-upstream.ts';
import { entraApp, startEntraAuthority, trustAuthority } from '../emulators/entra-authority.ts';
import { bedrockApiKey, bedrockCredentials, startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startOtlpReceiver } from '../tracing/otlp-receiver.ts';

const authority = await startEntraAuthority();
t.teardown(trustAuthority(authority));
const [receiver, bedrock, vertex, azure] = await Promise.all([
  startOtlpReceiver(),
  startBedrockUpstream(),
  startVertexUpstream(),
  startAzureOpenAIUpstream({ entraTokens: authority.issued }),
]);
t.teardown(() => Promise.all([receiver.close(), bedrock.close(), vertex.close(), azure.close(), authority.close()]));
t.teardown(redirectGoogleTokens(`${vertex.url}/token`));

const sessionToken = 'FwoGZXIvYXdzEXAMPLEsessiontoken-secrets-test';
const wrongSecret = 'wrong/Bedrock+Secret/secrets-test-0000000000';
const wrongBedrockKey = 'ABSKd3JvbmctYmVkcm9jay1rZXktc2VjcmV0cy10ZXN0';
const wrongAzureKey = 'azure-wrong-key-secrets-test-42';
const wrongClientSecret = 'entra~Wrong.Secret-secrets-test-0000';
const wrongBearer = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.wrong-entra-token';
/** A key file's private key, as lines of base64 any of which would give it away. */
const keyLines = (file: string): string[] =>
  (JSON.parse(readFileSync(file, 'utf8')) as { private_key: string }).private_key
    .split('\n')
    .filter((l) => l.length > 40 && !l.startsWith('-----'));

const br = { type: 'bedrock', region: 'us-east-1', base_url: bedrock.url };
const vx = { type: 'vertex', project: vertex.project, region: 'us-east5', base_url: vertex.url };
const az = { type: 'azure-openai', base_url: azure.url, api: 'chat_completions', api_version: '2024-10-21' };
const entra = {
  ...az,
  auth: 'entra',
  tenant_id: entraApp.tenantId,
  client_id: entraApp.clientId,
  authority_host: authority.url,
};
const app = await startInProcessApp(
  t,
  testConfig({
    providers: {
      br: {
        ...br,
        access_key_id: bedrockCredentials.accessKeyId,
        secret_access_key: bedrockCredentials.secretAccessKey,
        session_token: sessionToken,
      },
      'br-bad': {
        ...br,
        access_key_id: bedrockCredentials.accessKeyId,
        secret_access_key: wrongSecret,
        session_token: sessionToken,
      },
      'br-key': { ...br, api_key: bedrockApiKey },
      'br-bad-key': { ...br, api_key: wrongBedrockKey },
      vx: { ...vx, credentials_file: vertex.keyFile },
      'vx-bad': { ...vx, credentials_file: vertex.wrongKeyFile },
      'az-key': { ...az, api_key: azureDefaults.apiKey },
      'az-bearer': { ...az, auth: 'bearer', api_key: azureDefaults.bearerToken },
      'az-bad': { ...az, api_key: wrongAzureKey },
      'az-bad-bearer': { ...az, auth: 'bearer', api_key: wrongBearer },
      'az-entra': { ...entra, client_secret: entraApp.clientSecret },
      'az-entra-bad': { ...entra, client_secret: wrongClientSecret },
    },
    models: {
      'm-br': { routes: [{ provider: 'br', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      'm-br-bad': { routes: [{ provider: 'br-bad', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      'm-br-key': { routes: [{ provider: 'br-key', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      'm-br-bad-key': { routes: [{ provider: 'br-bad-key', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      'm-vx': { routes: [{ provider: 'vx', model: 'claude-sonnet-4-5@20250929' }] },
      'm-vx-bad': { routes: [{ provider: 'vx-bad', model: 'claude-sonnet-4-5@20250929' }] },
      'm-az-key': { routes: [{ provider: 'az-key', model: 'gpt-4o-deploy' }] },
      'm-az-bearer': { routes: [{ provider: 'az-bearer', model: 'gpt-4o-deploy' }] },
      'm-az-bad': { routes: [{ provider: 'az-bad', model: 'gpt-4o-deploy' }] },
      'm-az-bad-bearer': { routes: [{ provider: 'az-bad-bearer', model: 'gpt-4o-deploy' }] },
      'm-az-entra': { routes: [{ provider: 'az-entra', model: 'gpt-4o-deploy' }] },
      'm-az-entra-bad': { routes: [{ provider: 'az-entra-bad', model: 'gpt-4o-deploy' }] },
    },
    tracing: { endpoint: receiver.url, export_interval_ms: 50, sample_ratio: 1 },
  }),
);

/** What the client was shown: every answer's status, headers and body. */
const shown: string[] = [];
const traces: string[] = [];
let n = 0;
function client(): { sdk: Anthropic; traceId: string } {
  const traceId = (++n).toString(16).padStart(32, 'c');
  traces.push(traceId);
  const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
  return {
    sdk: new Anthropic({ baseURL: app.url, apiKey: TEST_KEY, maxRetries: 0, defaultHeaders: { traceparent } }),
    traceId,
  };
}
/** The access tokens Vertex was sent (taken before an emulator reset forgets them). */
const vertexTokens = new Set<string>();
const keepTokens = (): void => {
  for (const r of vertex.requests) vertexTokens.add(String(r.headers.authorization).replace(/^Bearer /, ''));
};
const ask = { max_tokens: 32, messages: [{ role: 'user' as const, content: 'hi' }] };

async function succeeds(t: Tap, model: string, stream: boolean): Promise<void> {
  const { sdk } = client();
  const { data, response } = await sdk.messages.create({ ...ask, model, stream }).withResponse();
  let text = '';
  if (stream) for await (const ev of data as AsyncIterable<unknown>) text += JSON.stringify(ev);
  else text = JSON.stringify(data);
  shown.push(text, JSON.stringify([...response.headers]));
  t.ok(text.length > 0, `${model}${stream ? ' streamed' : ''} answered`);
}

async function fails(t: Tap, model: string, provider: string, stream: boolean): Promise<void> {
  const { sdk } = client();
  const err = await sdk.messages.create({ ...ask, model, stream }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof APIError, `${model}: an API error`);
  const e = err as APIError;
  shown.push(JSON.stringify(e.error), e.message, JSON.stringify([...(e.headers ?? new Headers())]));
  t.equal(e.status, 502, `${model}: a 502`);
  t.match(e.message, new RegExp(`provider '${provider}'`), `${model}: names the provider`);
}
type Tap = { ok: typeof t.ok; equal: typeof t.equal; match: typeof t.match };

const scripted = (emu: { script(...r: Array<{ kind: 'text'; text: string }>): void }): void =>
  emu.script({ kind: 'text', text: 'fine' }, { kind: 'text', text: 'fine' }, { kind: 'text', text: 'fine' });

t.test('Bedrock: static keys with a session token', async (t) => {
  bedrock.reset();
  scripted(bedrock);
  await succeeds(t, 'm-br', false);
  await succeeds(t, 'm-br', true);
  t.equal(bedrock.requests[0].headers['x-amz-security-token'], sessionToken, 'the session token was sent');
  await fails(t, 'm-br-bad', 'br-bad', false);
  await fails(t, 'm-br-bad', 'br-bad', true);
});

t.test('Bedrock: an API key as a bearer token, no signature', async (t) => {
  bedrock.reset();
  scripted(bedrock);
  await succeeds(t, 'm-br-key', false);
  await succeeds(t, 'm-br-key', true);
  t.equal(bedrock.requests[0].headers.authorization, `Bearer ${bedrockApiKey}`, 'the key was sent as a bearer');
  t.notOk(bedrock.requests[0].headers['x-amz-date'], 'not signed');
  await fails(t, 'm-br-bad-key', 'br-bad-key', false);
  await fails(t, 'm-br-bad-key', 'br-bad-key', true);
});

t.test('Vertex: a service-account key and its access token', async (t) => {
  vertex.reset();
  scripted(vertex);
  await succeeds(t, 'm-vx', false);
  await succeeds(t, 'm-vx', true);
  t.match(String(vertex.requests[0].headers.authorization), /^Bearer ya29\./, 'a token was sent');
  keepTokens();
  await fails(t, 'm-vx-bad', 'vx-bad', false);
  await fails(t, 'm-vx-bad', 'vx-bad', true);
});

t.test('Azure OpenAI: an api-key and an Entra ID bearer', async (t) => {
  azure.reset();
  scripted(azure);
  await succeeds(t, 'm-az-key', false);
  await succeeds(t, 'm-az-bearer', true);
  t.equal(azure.requests[0].headers['api-key'], azureDefaults.apiKey, 'the key was sent');
  await fails(t, 'm-az-bad', 'az-bad', false);
  await fails(t, 'm-az-bad-bearer', 'az-bad-bearer', true);
});

t.test('Azure OpenAI: Entra ID tokens polygate fetches with a client secret', async (t) => {
  azure.reset();
  scripted(azure);
  await succeeds(t, 'm-az-entra', false);
  await succeeds(t, 'm-az-entra', true);
  t.ok(
    authority.issued.has(String(azure.requests[0].headers.authorization).replace(/^Bearer /, '')),
    'an issued token',
  );
  await fails(t, 'm-az-entra-bad', 'az-entra-bad', false);
  await fails(t, 'm-az-entra-bad', 'az-entra-bad', true);
});

/** An upstream that echoes the credential it was sent in an error (misconfigured or hostile). */
async function echoed(t: Tap, emu: typeof azure, model: string, header: string, stream: boolean): Promise<void> {
  emu.reset();
  emu.respond((req) => ({
    kind: 'error',
    status: 400,
    message: `bad request; you sent ${String(req.headers[header])}`,
  }));
  const { sdk } = client();
  const err = await sdk.messages.create({ ...ask, model, stream }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof APIError, `${model}: an API error`);
  const e = err as APIError;
  shown.push(JSON.stringify(e.error), e.message, JSON.stringify([...(e.headers ?? new Headers())]));
  t.equal(e.status, 400, `${model}: the upstream's 400`);
  t.match(e.message, /you sent/, `${model}: in the upstream's words`);
  keepTokens();
  emu.reset();
}

t.test('an upstream echoing the credential in an error: scrubbed', async (t) => {
  await echoed(t, bedrock, 'm-br', 'x-amz-security-token', false);
  await echoed(t, bedrock, 'm-br-key', 'authorization', true);
  await echoed(t, vertex, 'm-vx', 'authorization', false);
  await echoed(t, vertex, 'm-vx', 'authorization', true);
  await echoed(t, azure, 'm-az-key', 'api-key', false);
  await echoed(t, azure, 'm-az-bearer', 'authorization', true);
  await echoed(t, azure, 'm-az-entra', 'authorization', false);
});

t.test('no secret in the spans, the log, /metrics or what the clients got', async (t) => {
  // Every request's server span has ended and been exported.
  await waitFor('every trace exported', async () =>
    traces.every((id) => receiver.spans.some((s) => s.traceId === id && s.kind === 2)) ? true : undefined,
  );
  const failed = receiver.spans.filter((s) => s.kind === 2 && s.status === 2);
  t.equal(failed.length, 10, "the ten credential failures are error spans (a 400 is the client's)");
  t.ok(vertexTokens.size >= 1 && [...vertexTokens].every((tok) => tok.length > 20), 'the access tokens seen upstream');
  const secrets: Record<string, string[]> = {
    'the AWS secret': [bedrockCredentials.secretAccessKey, wrongSecret],
    'the AWS session token': [sessionToken],
    'the Bedrock API keys': [bedrockApiKey, wrongBedrockKey],
    'the service-account keys': [...keyLines(vertex.keyFile), ...keyLines(vertex.wrongKeyFile)],
    'the Google access token': [...vertexTokens],
    'the Azure keys': [azureDefaults.apiKey, wrongAzureKey],
    'the Entra ID tokens': [azureDefaults.bearerToken, wrongBearer, ...authority.issued],
    'the Entra ID client secrets': [entraApp.clientSecret, wrongClientSecret],
  };
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  const places: Record<string, string> = {
    spans: receiver.raw.join('\n'),
    log: JSON.stringify(app.logs()),
    metrics,
    'client answers': shown.join('\n'),
  };
  t.ok(places.spans.includes('rejected polygate'), 'the spans say what failed');
  for (const [what, values] of Object.entries(secrets))
    for (const [where, text] of Object.entries(places))
      t.notOk(
        values.some((v) => text.includes(v)),
        `${what}: not in the ${where}`,
      );
});
