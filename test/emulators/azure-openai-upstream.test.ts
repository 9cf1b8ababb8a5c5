// The Azure OpenAI emulator, proven by the `openai` package's own AzureOpenAI client (and the
// plain OpenAI client on the v1 path): deployment paths with api-version, the api-key header and
// Entra ID bearer tokens, Chat Completions and Responses, streamed and not.
import t from 'tap';
import OpenAI, { AzureOpenAI } from 'openai';
import { azureDefaults, startAzureOpenAIUpstream } from './azure-openai-upstream.ts';
import { emulatorForFile } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startAzureOpenAIUpstream);
const apiVersion = '2024-10-21';
const keyed = new AzureOpenAI({ endpoint: emu.url, apiKey: azureDefaults.apiKey, apiVersion, maxRetries: 0 });
const entra = new AzureOpenAI({
  endpoint: emu.url,
  azureADTokenProvider: async () => azureDefaults.bearerToken,
  apiVersion: '2025-03-01-preview',
  maxRetries: 0,
});

t.test('chat on a deployment path with the api-key header', async (t) => {
  emu.script({ kind: 'text', text: 'Hello from Azure.' });
  const res = await keyed.chat.completions.create({
    model: 'gpt-4o-deploy',
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.equal(res.choices[0].message.content, 'Hello from Azure.');
  t.equal(res.model, 'gpt-4o-deploy');
  const got = emu.requests[0];
  t.equal(got.path, `/openai/deployments/gpt-4o-deploy/chat/completions?api-version=${apiVersion}`);
  t.equal(got.headers['api-key'], azureDefaults.apiKey);
});

t.test('a streamed chat answer opens with the prompt-filter chunk the SDK skips', async (t) => {
  emu.script({ kind: 'text', text: 'one two', chunks: ['one ', 'two'] });
  const stream = await keyed.chat.completions.create({
    model: 'gpt-4o-deploy',
    messages: [{ role: 'user', content: 'count' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let empty = 0;
  for await (const c of stream) {
    if (c.choices.length === 0 && !c.usage) empty++;
    text += c.choices[0]?.delta.content ?? '';
  }
  t.equal(text, 'one two');
  t.equal(empty, 1, 'one chunk without choices (prompt_filter_results)');
});

t.test('responses with an Entra ID token', async (t) => {
  emu.script({ kind: 'text', text: 'Responses on Azure.' });
  const res = await entra.responses.create({ model: 'gpt-5-deploy', input: 'hi' });
  t.equal(res.output_text, 'Responses on Azure.');
  const got = emu.requests[0];
  t.equal(got.path, '/openai/responses?api-version=2025-03-01-preview');
  t.equal(got.headers.authorization, `Bearer ${azureDefaults.bearerToken}`);
  t.notOk(got.headers['api-key']);
});

t.test('streamed responses', async (t) => {
  emu.script({ kind: 'text', text: 'streamed reply' });
  const s = keyed.responses.stream({ model: 'gpt-5-deploy', input: 'hi' });
  const r = await s.finalResponse();
  t.equal(r.output_text, 'streamed reply');
});

t.test('the v1 API through the plain OpenAI client', async (t) => {
  const v1 = new OpenAI({ baseURL: `${emu.url}/openai/v1`, apiKey: azureDefaults.apiKey, maxRetries: 0 });
  emu.script({ kind: 'text', text: 'v1 chat' }, { kind: 'text', text: 'v1 responses' });
  const c = await v1.chat.completions.create({ model: 'gpt-4o-deploy', messages: [{ role: 'user', content: 'x' }] });
  t.equal(c.choices[0].message.content, 'v1 chat');
  const r = await v1.responses.create({ model: 'gpt-5-deploy', input: 'x' });
  t.equal(r.output_text, 'v1 responses');
  t.same(
    emu.requests.map((q) => q.path),
    ['/openai/v1/chat/completions', '/openai/v1/responses'],
  );
});

t.test('a wrong key is 401, an unknown deployment 404, in Azure error bodies', async (t) => {
  const wrong = new AzureOpenAI({ endpoint: emu.url, apiKey: 'not-the-key', apiVersion, maxRetries: 0 });
  const e1 = await wrong.chat.completions
    .create({ model: 'gpt-4o-deploy', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.ok(e1 instanceof OpenAI.AuthenticationError);
  t.match((e1 as InstanceType<typeof OpenAI.APIError>).error, { code: '401', message: /Access denied/ });
  const e2 = await keyed.chat.completions
    .create({ model: 'no-such-deploy', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.ok(e2 instanceof OpenAI.NotFoundError);
  t.match((e2 as InstanceType<typeof OpenAI.APIError>).error, { code: 'DeploymentNotFound' });
});
