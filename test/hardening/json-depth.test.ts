// Finding: a body nested 10,000 levels (a tool's input_schema, a json_schema) overflowed the stack
// of recursive decoders: a 500, counted against the route's breaker, so five such requests from
// one key made every tenant's echo requests answer 503 for 30 s. Now refused at parse time, in
// each family's own error shape, before any decoder or upstream sees it.
import t from 'tap';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { OTHER_KEY, TEST_KEY } from '../helpers/start-gateway.ts';

const {
  gw,
  up: { chat },
} = await gatewayWithEmulators(t, { upstreams: { chat: 'chat' }, models: modelRoutes({ 'via-chat': 'chat/gpt-up' }) });

/** A JSON Schema nested `levels` deep (each level an object with one property), as text: JSON.stringify would overflow first. */
const deepSchema = (levels: number): string =>
  '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + '}}'.repeat(levels);

async function post(path: string, body: string, key = TEST_KEY): Promise<{ status: number; json: any }> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      authorization: `Bearer ${key}`,
      'x-goog-api-key': key,
    },
    body,
  });
  return { status: res.status, json: await res.json() };
}

const messagesWithSchema = (schema: string, model = 'echo'): string =>
  `{"model":"${model}","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"deep","input_schema":${schema}}],"tool_choice":{"type":"tool","name":"deep"}}`;

t.test('Messages: a tool input_schema nested 10,000 levels is a 400 naming the body, not a 500', async (t) => {
  const r = await post('/v1/messages', messagesWithSchema(deepSchema(10_000)));
  t.equal(r.status, 400);
  t.equal(r.json.type, 'error');
  t.equal(r.json.error.type, 'invalid_request_error');
  t.match(r.json.error.message, /body: JSON nested deeper than 128 levels/);
});

t.test(
  'Chat Completions to a real upstream: a deep json_schema is a 400, never 502, and nothing reaches the upstream',
  async (t) => {
    chat.reset();
    const body = `{"model":"via-chat","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":${deepSchema(10_000)}}}}`;
    const r = await post('/v1/chat/completions', body);
    t.equal(r.status, 400);
    t.equal(r.json.error.param, 'body');
    t.equal(r.json.error.type, 'invalid_request_error');
    t.equal(chat.requests.length, 0, 'no upstream call was made');
  },
);

t.test('Gemini: the 400 comes in the family shape', async (t) => {
  const body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"deep","parameters":${deepSchema(10_000)}}]}]}`;
  const r = await post('/v1beta/models/echo:generateContent', body);
  t.equal(r.status, 400);
  t.equal(r.json.error.status, 'INVALID_ARGUMENT');
  t.match(r.json.error.message, /nested deeper than/);
});

t.test('deep bodies from one key do not open the breaker for every other key', async (t) => {
  for (let i = 0; i < 8; i++) t.equal((await post('/v1/messages', messagesWithSchema(deepSchema(10_000)))).status, 400);
  const r = await post(
    '/v1/messages',
    '{"model":"echo","max_tokens":64,"messages":[{"role":"user","content":"still here"}]}',
    OTHER_KEY,
  );
  t.equal(r.status, 200, 'another tenant is served');
  t.equal(r.json.content[0].text, 'still here');
});

t.test('a realistically nested tool schema (30 levels, JSON depth ~65) is served', async (t) => {
  const r = await post('/v1/messages', messagesWithSchema(deepSchema(30)));
  t.equal(r.status, 200);
  t.equal(r.json.content[0].type, 'tool_use');
});

t.test('the depth check counts nesting, not width, and honours the configured limit', async (t) => {
  // The check runs on the body's text before it is parsed (src/infra/http/json-shape.ts).
  const { checkJsonShape } = await import('../../src/infra/http/json-shape.ts');
  const depth = (value: unknown, maxDepth: number): void =>
    checkJsonShape(JSON.stringify(value), { maxDepth, maxItems: 1e9, maxKeys: 1e9 });
  t.doesNotThrow(() => depth({ a: { b: [1, 2] } }, 3));
  const err = (() => {
    try {
      depth({ a: { b: [{}] } }, 3);
    } catch (e) {
      return e as { param: string; status: number };
    }
  })();
  t.match(err, { param: 'body', status: 400 });
  t.doesNotThrow(
    () =>
      depth(
        Array.from({ length: 100_000 }, () => ({ x: [1] })),
        3,
      ),
    'a wide body is fine',
  );
  t.doesNotThrow(() => depth('text', 1));
});
