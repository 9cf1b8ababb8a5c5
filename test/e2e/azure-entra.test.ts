// Azure OpenAI with Entra ID tokens polygate fetches itself (issue #26, docs/providers.md "Azure
// OpenAI", `auth: entra`): @azure/identity's ClientSecretCredential gets a token from the Entra
// authority emulator (its `authority_host`), which checks the client secret; the Azure emulator
// accepts only tokens that authority issued. The official `openai` SDK is the client: Chat relayed
// and Responses translated, streamed and not; the token is cached and fetched again before it
// expires; a wrong client secret is a 502 naming the provider in OpenAI's error shape.
import t from 'tap';
import OpenAI from 'openai';
import { entraApp } from '../emulators/entra-authority.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { entraAt, startEntraAzure } from './cloud-providers.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

const { authority, azure: emu } = await startEntraAzure(t);
const entra = entraAt(emu, authority);
const app = await startInProcessApp(
  t,
  testConfig({
    providers: {
      'az-chat': { ...entra, api: 'chat_completions', api_version: '2024-10-21', client_secret: entraApp.clientSecret },
      'az-resp': { ...entra, api: 'responses', client_secret: entraApp.clientSecret },
      'az-short': { ...entra, api: 'chat_completions', client_secret: entraApp.clientSecret },
      'az-bad': { ...entra, api: 'chat_completions', client_secret: 'entra~wrong-secret-0000000000' },
    },
    models: modelRoutes({
      'gpt-4o': 'az-chat/gpt-4o-deploy',
      'gpt-5': 'az-resp/gpt-5-deploy',
      'gpt-short': 'az-short/gpt-4o-deploy',
      'gpt-bad': 'az-bad/gpt-4o-deploy',
    }),
  }),
);
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
const bearerOf = (i: number): string => String(emu.requests[i].headers.authorization).replace(/^Bearer /, '');
const secretRequests = (): number =>
  authority.tokenRequests.filter((r) => r.client_secret === entraApp.clientSecret).length;

t.test('Chat (relayed) and Responses (streamed), one token for all: cached', async (t) => {
  emu.reset();
  emu.script({ kind: 'text', text: 'chat via entra' }, { kind: 'text', text: 'responses via entra' });
  const chat = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  t.equal(chat.choices[0].message.content, 'chat via entra');
  let text = '';
  const stream = await openai.responses.create({ model: 'gpt-5', input: 'hi', stream: true });
  for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
  t.equal(text, 'responses via entra');
  t.ok(authority.issued.has(bearerOf(0)), 'the resource got a token the authority issued');
  t.equal(emu.requests[0].headers['api-key'], undefined, 'no api-key header');
  t.match(authority.tokenRequests[0], {
    grant_type: 'client_credentials',
    client_id: entraApp.clientId,
    scope: 'https://cognitiveservices.azure.com/.default',
  });
  const before = secretRequests();
  await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'again' }] });
  t.equal(secretRequests(), before, 'no new token request while the token is fresh');
  t.equal(bearerOf(2), bearerOf(0), 'the same token');
});

t.test('a token close to its expiry is fetched again before use', async (t) => {
  emu.reset();
  // Two minutes of validity: inside the five-minute margin, so each call needs a fresh token.
  authority.expiresIn = 120;
  t.teardown(() => void (authority.expiresIn = 3599));
  const before = secretRequests();
  for (const content of ['one', 'two'])
    await openai.chat.completions.create({ model: 'gpt-short', messages: [{ role: 'user', content }] });
  t.equal(secretRequests() - before, 2, 'a token request per call');
  t.not(bearerOf(1), bearerOf(0), 'a new token');
  t.ok(authority.issued.has(bearerOf(1)));
});

t.test('a wrong client secret: a 502 naming the provider, in OpenAI shape', async (t) => {
  const e = await openai.chat.completions
    .create({ model: 'gpt-bad', messages: [{ role: 'user', content: 'hi' }] })
    .catch((err: unknown) => err);
  t.ok(e instanceof OpenAI.APIError);
  const err = e as InstanceType<typeof OpenAI.APIError>;
  t.equal(err.status, 502);
  t.match(err.error, { message: /provider 'az-bad' could not get an Entra ID token/ });
  t.notMatch(JSON.stringify(err.error), /wrong-secret/, 'the secret is not in the error');
});
