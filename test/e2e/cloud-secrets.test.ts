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
import { azureDefaults } from '../emulators/azure-openai-upstream.ts';
import { entraApp } from '../emulators/entra-authority.ts';
import { bedrockApiKey, bedrockCredentials, startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import type { RecordedRequest } from '../emulators/emulator-types.ts';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startOtlpReceiver } from '../tracing/otlp-receiver.ts';
import { bedrockAt, bedrockKeys, entraAt, startEntraAzure, vertexAt } from './cloud-providers.ts';

const { authority, azure } = await startEntraAzure(t);
const [receiver, bedrock, vertex] = await Promise.all([
  startOtlpReceiver(),
  startBedrockUpstream(),
  startVertexUpstream(),
]);
t.teardown(() => Promise.all([receiver.close(), bedrock.close(), vertex.close()]));
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

const br = { ...bedrockAt(bedrock), ...bedrockKeys, session_token: sessionToken };
const vx = vertexAt(vertex);
const az = { type: 'azure-openai', base_url: azure.url, api: 'chat_completions', api_version: '2024-10-21' };
const entra = { ...entraAt(azure, authority), api: 'chat_completions', api_version: '2024-10-21' };
const providers: Record<string, Record<string, unknown>> = {
  br,
  'br-bad': { ...br, secret_access_key: wrongSecret },
  'br-key': { ...bedrockAt(bedrock), api_key: bedrockApiKey },
  'br-bad-key': { ...bedrockAt(bedrock), api_key: wrongBedrockKey },
  vx: { ...vx, credentials_file: vertex.keyFile },
  'vx-bad': { ...vx, credentials_file: vertex.wrongKeyFile },
  'az-key': { ...az, api_key: azureDefaults.apiKey },
  'az-bearer': { ...az, auth: 'bearer', api_key: azureDefaults.bearerToken },
  'az-bad': { ...az, api_key: wrongAzureKey },
  'az-bad-bearer': { ...az, auth: 'bearer', api_key: wrongBearer },
  'az-entra': { ...entra, client_secret: entraApp.clientSecret },
  'az-entra-bad': { ...entra, client_secret: wrongClientSecret },
};
/** The upstream model each cloud serves: Claude on Bedrock and Vertex, a deployment on Azure. */
const upstreamModel: Record<string, string> = {
  bedrock: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  vertex: 'claude-sonnet-4-5@20250929',
  'azure-openai': 'gpt-4o-deploy',
};
const app = await startInProcessApp(
  t,
  testConfig({
    providers,
    // Provider `p` serves the model `m-p`.
    models: Object.fromEntries(
      Object.entries(providers).map(([p, { type }]) => [
        `m-${p}`,
        { routes: [{ provider: p, model: upstreamModel[String(type)] }] },
      ]),
    ),
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

/** The API error a request for `model` ends in, its body, message and headers kept as what the client was shown. */
async function refused(t: Tap, model: string, stream: boolean): Promise<APIError> {
  const { sdk } = client();
  const err = await sdk.messages.create({ ...ask, model, stream }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof APIError, `${model}: an API error`);
  const e = err as APIError;
  shown.push(JSON.stringify(e.error), e.message, JSON.stringify([...(e.headers ?? new Headers())]));
  return e;
}

async function fails(t: Tap, model: string, provider: string, stream: boolean): Promise<void> {
  const e = await refused(t, model, stream);
  t.equal(e.status, 502, `${model}: a 502`);
  t.match(e.message, new RegExp(`provider '${provider}'`), `${model}: names the provider`);
}
type Tap = { ok: typeof t.ok; equal: typeof t.equal; match: typeof t.match; notOk: typeof t.notOk };

/** Per credential kind: which emulator, what it must have been sent, and the provider of a wrong one (twice: not streamed, streamed). */
const kinds: Array<{
  name: string;
  emu: typeof azure;
  ok: [string, string];
  sent(t: Tap, got: RecordedRequest): void;
  bad: [string, string];
}> = [
  {
    name: 'Bedrock: static keys with a session token',
    emu: bedrock,
    ok: ['m-br', 'm-br'],
    sent: (t, got) => t.equal(got.headers['x-amz-security-token'], sessionToken, 'the session token was sent'),
    bad: ['br-bad', 'br-bad'],
  },
  {
    name: 'Bedrock: an API key as a bearer token, no signature',
    emu: bedrock,
    ok: ['m-br-key', 'm-br-key'],
    sent(t, got) {
      t.equal(got.headers.authorization, `Bearer ${bedrockApiKey}`, 'the key was sent as a bearer');
      t.notOk(got.headers['x-amz-date'], 'not signed');
    },
    bad: ['br-bad-key', 'br-bad-key'],
  },
  {
    name: 'Vertex: a service-account key and its access token',
    emu: vertex,
    ok: ['m-vx', 'm-vx'],
    sent(t, got) {
      t.match(String(got.headers.authorization), /^Bearer ya29\./, 'a token was sent');
      keepTokens();
    },
    bad: ['vx-bad', 'vx-bad'],
  },
  {
    name: 'Azure OpenAI: an api-key and an Entra ID bearer',
    emu: azure,
    ok: ['m-az-key', 'm-az-bearer'],
    sent: (t, got) => t.equal(got.headers['api-key'], azureDefaults.apiKey, 'the key was sent'),
    bad: ['az-bad', 'az-bad-bearer'],
  },
  {
    name: 'Azure OpenAI: Entra ID tokens polygate fetches with a client secret',
    emu: azure,
    ok: ['m-az-entra', 'm-az-entra'],
    sent: (t, got) =>
      t.ok(authority.issued.has(String(got.headers.authorization).replace(/^Bearer /, '')), 'an issued token'),
    bad: ['az-entra-bad', 'az-entra-bad'],
  },
];

for (const k of kinds)
  t.test(k.name, async (t) => {
    k.emu.reset();
    k.emu.script({ kind: 'text', text: 'fine' }, { kind: 'text', text: 'fine' }, { kind: 'text', text: 'fine' });
    await succeeds(t, k.ok[0], false);
    await succeeds(t, k.ok[1], true);
    k.sent(t, k.emu.requests[0]);
    await fails(t, `m-${k.bad[0]}`, k.bad[0], false);
    await fails(t, `m-${k.bad[1]}`, k.bad[1], true);
  });

/** An upstream that echoes the credential it was sent in an error (misconfigured or hostile). */
async function echoed(t: Tap, emu: typeof azure, model: string, header: string, stream: boolean): Promise<void> {
  emu.reset();
  emu.respond((req) => ({
    kind: 'error',
    status: 400,
    message: `bad request; you sent ${String(req.headers[header])}`,
  }));
  const e = await refused(t, model, stream);
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
