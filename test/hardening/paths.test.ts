// Findings 7 and 8 of the hardening issue. Paths the router serves (case-insensitive, one optional
// trailing slash) are the family's paths for errors, metrics and the log too; a malformed percent
// escape in a model name is a 404 in the family's shape (was a 500 URIError), and a model name is
// decoded once (`ech%256f` is not `echo`). Unknown methods get a JSON 405 with `allow`, unknown
// paths a JSON 404, and every request leaves a log line; `HEAD /` and `GET /` answer 200.
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';

import type { Json } from '../helpers/json.ts';
const gw = await startInProcessGateway(testConfig({}));
t.teardown(() => gw.stop());

const gemini = (model: string): Promise<Response> =>
  fetch(`${gw.url}/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });

/** The access log line of a request, by its x-request-id. */
async function logLine(id: string): Promise<Json> {
  return waitFor(`log line of ${id}`, async () => {
    const line = gw
      .output()
      .split('\n')
      .find((l) => l.includes(`"request_id":"${id}"`));
    return line ? (JSON.parse(line) as Json) : undefined;
  });
}

async function metricsText(): Promise<string> {
  return (await fetch(`${gw.url}/metrics`)).text();
}

t.test('a malformed percent escape in a Gemini model name is a 404 in the Gemini shape', async (t) => {
  const r = await gemini('%E0%A4%A');
  t.equal(r.status, 404);
  const body = (await r.json()) as Json;
  t.equal(body.error.status, 'NOT_FOUND');
  t.equal(body.error.code, 404);
});

t.test('a malformed percent escape in other path parameters is a 404 in the family shape', async (t) => {
  const responses = await fetch(`${gw.url}/v1/responses/%E0%A4%A`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  t.equal(responses.status, 404);
  t.equal(((await responses.json()) as Json).error.type, 'invalid_request_error');
  const task = await fetch(`${gw.url}/tune/fetch/%E0%A4%A`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(task.status, 404);
  t.equal(((await task.json()) as Json).code, 'not_found');
});

t.test('a model name is decoded once', async (t) => {
  const r = await gemini('ech%256f');
  t.equal(r.status, 404, 'ech%6f is not echo');
  t.equal(((await r.json()) as Json).error.status, 'NOT_FOUND');
  const ok = await gemini('ech%6f');
  t.equal(ok.status, 200, 'one escape level is decoded');
});

t.test('upper-case and trailing-slash paths are served and counted in their family', async (t) => {
  const cases: Array<{
    path: string;
    headers: Record<string, string>;
    body: Json;
    family: string;
    check: (b: Json) => void;
  }> = [
    {
      path: '/V1/MESSAGES',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      body: { model: 'echo', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
      family: 'messages',
      check: (b) => t.equal(b.type, 'message'),
    },
    {
      path: '/v1/chat/completions/',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      body: { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
      family: 'chat',
      check: (b) => t.equal(b.object, 'chat.completion'),
    },
    {
      path: '/V1/Responses/',
      headers: { authorization: `Bearer ${TEST_KEY}` },
      body: { model: 'echo', input: 'hi', store: false },
      family: 'responses',
      check: (b) => t.equal(b.object, 'response'),
    },
  ];
  for (const c of cases) {
    const id = `paths-${c.family}-${Date.now()}`;
    const r = await fetch(`${gw.url}${c.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': id, ...c.headers },
      body: JSON.stringify(c.body),
    });
    t.equal(r.status, 200, c.path);
    c.check((await r.json()) as Json);
    const line = await logLine(id);
    t.equal(line.family, c.family, `${c.path} is logged in family ${c.family}`);
    t.equal(line.status, 200);
  }
  const text = await metricsText();
  t.match(
    text,
    /polygate_requests_total\{family="chat",inbound_format="openai-chat"[^}]*outcome="ok"\} [1-9]/,
    'counted as chat',
  );
});

t.test('errors on a non-canonical path come in that family shape', async (t) => {
  const r = await fetch(`${gw.url}/V1/MESSAGES/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-wrong', 'anthropic-version': '2023-06-01' },
    body: '{}',
  });
  t.equal(r.status, 401);
  const body = (await r.json()) as Json;
  t.equal(body.type, 'error', "Anthropic's error shape");
  t.equal(body.error.type, 'authentication_error');
});

t.test('an unknown method on a known path is a 405 in the family shape with allow', async (t) => {
  const id = `paths-405-${Date.now()}`;
  const r = await fetch(`${gw.url}/v1/messages`, { method: 'GET', headers: { 'x-request-id': id } });
  t.equal(r.status, 405);
  t.match(r.headers.get('allow') ?? '', /POST/);
  t.match(r.headers.get('content-type') ?? '', /application\/json/);
  const body = (await r.json()) as Json;
  t.equal(body.type, 'error');
  t.match(body.error.message, /GET/);
  t.equal((await logLine(id)).status, 405, 'logged');
  const g = await fetch(`${gw.url}/v1beta/models/echo:generateContent`, { method: 'PUT' });
  t.equal(g.status, 405);
  t.ok(((await g.json()) as Json).error.status, "Gemini's error shape");
});

t.test('an unknown path is a JSON 404 (OpenAI shape under /v1), logged and counted', async (t) => {
  const id = `paths-404-${Date.now()}`;
  const r = await fetch(`${gw.url}/v1/nothing-here`, { method: 'POST', headers: { 'x-request-id': id } });
  t.equal(r.status, 404);
  const body = (await r.json()) as Json;
  t.equal(body.error.type, 'invalid_request_error');
  t.match(body.error.message, /no route/);
  const line = await logLine(id);
  t.equal(line.family, 'none');
  t.equal(line.status, 404);
  t.match(await metricsText(), /polygate_requests_total\{family="none"[^}]*outcome="not-found"\} [1-9]/);
});

t.test('HEAD / and GET / answer 200', async (t) => {
  const head = await fetch(`${gw.url}/`, { method: 'HEAD' });
  t.equal(head.status, 200);
  const get = await fetch(`${gw.url}/`);
  t.equal(get.status, 200);
  const body = (await get.json()) as Json;
  t.equal(body.name, 'polygate');
  t.type(body.version, 'string');
  t.equal(body.links.health, '/healthz');
});
