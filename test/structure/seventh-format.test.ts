// Adding a wire format touches only its folder and the list of formats (issue #16, "Done when").
// A made-up seventh format (test/structure/fake-format/) is added to the real list, and the app
// built in-process from that list serves it: its path is detected as the format, its credential
// authenticates, its body decodes, the echo provider answers, the answer and the stream are
// encoded in its wire, and errors (401, 400, 404) come in its shape. The same app without it
// answers that path as a path of no format, so nothing else in src/ knows the fake one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { formats, type FormatModule } from '../../src/infra/formats/formats.ts';
import { formatOfPath } from '../../src/infra/http/format-of-path.ts';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process-app.ts';
import { repoRoot, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { fakeFormat } from './fake-format/index.ts';

const withFake: readonly FormatModule[] = [...formats, fakeFormat];

const serve = (t: Test, list: readonly FormatModule[]): Promise<InProcessApp> =>
  startInProcessApp(t, testConfig({}), {}, list);

const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

t.test('format detection reads the injected list', async (t) => {
  t.equal(formatOfPath('/v7/fake/generate', {}, {}, withFake)?.name, 'fake-format');
  t.equal(
    formatOfPath('/V7/FAKE/generate/', {}, {}, withFake)?.name,
    'fake-format',
    "the router's path rule: any case, one trailing slash",
  );
  t.equal(formatOfPath('/v7/fake/generate', {}, {}, formats), undefined, 'the real list does not know it');
  t.equal(
    formatOfPath('/v1/messages', {}, {}, withFake)?.name,
    'anthropic-messages',
    'the real formats keep their paths',
  );
});

t.test('an app built with the fake format serves it end to end', async (t) => {
  const { url } = await serve(t, withFake);
  const key = { 'x-fake-key': TEST_KEY };

  const ok = await post(`${url}/v7/fake/generate`, { model: 'echo', prompt: 'hello seventh' }, key);
  t.equal(ok.status, 200);
  t.same(
    await ok.json(),
    { fake_text: 'hello seventh', fake_model: 'echo' },
    'decoded, routed to echo, encoded in the fake wire',
  );

  const streamed = await post(`${url}/v7/fake/generate`, { model: 'echo', prompt: 'one two', stream: true }, key);
  t.equal(streamed.status, 200);
  t.match(streamed.headers.get('content-type'), /^text\/event-stream/);
  const frames = (await streamed.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  t.equal(frames.map((f) => f.delta ?? '').join(''), 'one two', 'the stream carries the text in the fake frames');
  t.same(frames.at(-1), { done: true }, 'and ends with its own closing frame');

  const noKey = await post(
    `${url}/v7/fake/generate`,
    { model: 'echo', prompt: 'x' },
    { authorization: `Bearer ${TEST_KEY}` },
  );
  t.equal(noKey.status, 401, "only the fake format's own header carries its key");
  t.same(await noKey.json(), { fake_error: { reason: 'authentication', field: null } });

  const bad = await post(`${url}/v7/fake/generate`, { model: 'echo' }, key);
  t.equal(bad.status, 400);
  t.same(
    await bad.json(),
    { fake_error: { reason: 'invalid-request', field: 'prompt' } },
    'bad input: the field named, in the fake shape',
  );

  const missing = await fetch(`${url}/v7/fake/nowhere`, { headers: key });
  t.equal(missing.status, 404);
  t.same(
    await missing.json(),
    { fake_error: { reason: 'not-found', field: null } },
    'an unknown path under the format answers in its shape',
  );

  const metrics = await (await fetch(`${url}/metrics`)).text();
  t.match(
    metrics,
    /polygate_requests_total\{[^}]*family="fake",inbound_format="fake-format"[^}]*outcome="ok"/,
    'metrics carry its label and name',
  );

  const chat = await post(
    `${url}/v1/chat/completions`,
    { model: 'echo', messages: [{ role: 'user', content: 'still here' }] },
    { authorization: `Bearer ${TEST_KEY}` },
  );
  t.equal(chat.status, 200, 'the real formats are served beside it');
});

t.test('its model list: a route of another kind, on its own path and on a path it shares', async (t) => {
  const { url } = await serve(t, withFake);
  const key = { 'x-fake-key': TEST_KEY };

  const own = await fetch(`${url}/v7/fake/models`, { headers: key });
  t.equal(own.status, 200);
  const listed = ((await own.json()) as { fake_models: string[] }).fake_models;
  t.ok(listed.includes('echo'), "the config's models, in the fake list shape");

  const one = await fetch(`${url}/v7/fake/models/echo`, { headers: key });
  t.same(await one.json(), { fake_model: 'echo', fake_owner: 'echo' }, 'one model in its shape');

  const unknown = await fetch(`${url}/v7/fake/models/no-such-model`, { headers: key });
  t.equal(unknown.status, 404);
  t.same(
    await unknown.json(),
    { fake_error: { reason: 'not-found', field: 'model' } },
    'an unknown model: 404 in its shape',
  );

  const shared = await fetch(`${url}/v1/models`, { headers: key });
  t.equal(shared.status, 200);
  t.same(
    await shared.json(),
    { fake_models: listed },
    '/v1/models with its header: its list, through the route the real formats share',
  );

  const openai = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(((await openai.json()) as { object?: string }).object, 'list', "without it, OpenAI's list as before");
  const anthropic = await fetch(`${url}/v1/models`, {
    headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
  });
  t.match(await anthropic.json(), { has_more: false, first_id: String }, "and Anthropic's with anthropic-version");

  const wrongKey = await fetch(`${url}/v1/models`, { headers: { 'x-fake-key': 'not-a-key' } });
  t.equal(wrongKey.status, 401);
  t.same(
    await wrongKey.json(),
    { fake_error: { reason: 'authentication', field: null } },
    'the shared route authenticates as the detected format',
  );
});

t.test('a relay drops the credential header of every format the app serves, the added one too', async (t) => {
  const { app, up } = await inProcessWithEmulators(t, {
    upstreams: { oai: 'chat' },
    models: { 'gpt-pass': { routes: [{ provider: 'oai', model: 'gpt-upstream' }] } },
    formats: withFake,
  });
  up.oai.script({ kind: 'text', text: 'relayed' });
  const res = await post(
    `${app.url}/v1/chat/completions`,
    { model: 'gpt-pass', messages: [{ role: 'user', content: 'hi' }] },
    { authorization: `Bearer ${TEST_KEY}`, 'x-fake-key': 'fake-secret' },
  );
  t.equal(res.status, 200);
  const line = await waitFor("the relayed request's log line", async () =>
    app.logs().find((l) => l.model === 'gpt-pass' && l.route !== undefined),
  );
  t.equal(line.mode, 'passthrough', 'served by the same-format relay');
  const sent = up.oai.requests.at(-1);
  t.equal(sent?.headers['x-fake-key'], undefined, "the fake format's credential did not reach the upstream");
  t.equal(sent?.headers.authorization, 'Bearer sk-upstream-openai', 'the upstream got its own key');
});

t.test('the same app without the fake format does not know its path', async (t) => {
  const { url } = await serve(t, formats);
  const res = await post(`${url}/v7/fake/generate`, { model: 'echo', prompt: 'x' }, { 'x-fake-key': TEST_KEY });
  t.equal(res.status, 404);
  const body = (await res.json()) as { error?: { type?: string } };
  t.equal(body.error?.type, 'invalid_request_error', "a path of no format: OpenAI's error shape");
});

t.test('nothing outside the fake folder and this test names the fake format', async (t) => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });
  const naming = [...files(join(repoRoot, 'src')), ...files(join(repoRoot, 'adapters'))].filter((f) =>
    /fake-format|fakeFormat/.test(readFileSync(f, 'utf8')),
  );
  t.same(naming, [], 'src/ and adapters/ serve it from the list alone');
});
