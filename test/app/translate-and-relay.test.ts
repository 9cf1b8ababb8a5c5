// The app built in this process (createApp with services opened from a config object,
// test/helpers/in-process-app.ts) against emulated upstreams, driven by the official SDKs: a
// translated stream, a translated Responses call, Gemini on echo, an error in the family's own
// shape and a same-format relay. No spawned gateway: the log and the services are readable here.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { gatewayWithUpstreams } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { postMessages } from '../e2e/post-messages.ts';

import type { Json } from '../helpers/json.ts';

const { gw, anth, oai } = await gatewayWithUpstreams(t, {
  models: modelRoutes({
    'claude-via-openai': 'oai/gpt-upstream-1',
    'gpt-via-anthropic': 'anth/claude-upstream-1',
    'claude-pass': 'anth/claude-upstream-2',
  }),
});
const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const last = <T>(xs: T[]): T => xs[xs.length - 1];
/** The request's access log line, written once its response has closed and its handler settled. */
const accessLine = (model: string): Promise<Json> =>
  waitFor(`the log line of ${model}`, async () => gw.logs().find((l) => l.model === model && l.route !== undefined));

t.beforeEach(() => {
  anth.reset();
  oai.reset();
});

t.test('Messages → OpenAI Chat Completions, streamed (Anthropic SDK)', async (t) => {
  oai.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
  const stream = anthropic.messages.stream({
    model: 'claude-via-openai',
    max_tokens: 64,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'count' }],
  });
  const deltas: string[] = [];
  stream.on('text', (d) => deltas.push(d));
  const msg = await stream.finalMessage();
  t.same(deltas, ['one ', 'two ', 'three'], 'each upstream chunk became a text delta');
  t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'one two three');
  t.equal(msg.stop_reason, 'end_turn');
  t.equal(msg.model, 'claude-via-openai', 'the client model name, not the upstream one');
  t.ok(msg.usage.output_tokens > 0, 'usage from the upstream usage chunk');
  const sent = last(oai.requests);
  t.equal(sent.path, '/v1/chat/completions');
  t.equal((sent.body as Json).model, 'gpt-upstream-1');
  t.equal((sent.body as Json).stream, true);
  t.same((sent.body as Json).messages[0], { role: 'system', content: 'Be brief.' }, 'system became the first message');
  t.equal(sent.headers.authorization, 'Bearer sk-upstream-openai', 'the upstream key, never the client one');
  t.match(
    await accessLine('claude-via-openai'),
    {
      family: 'messages',
      inbound_format: 'anthropic-messages',
      upstream_format: 'openai-chat',
      mode: 'translate',
      provider: 'oai',
      status: 200,
    },
    'the request log line, read in-process',
  );
});

t.test('Responses → Anthropic Messages (openai SDK)', async (t) => {
  anth.script({ kind: 'text', text: 'bonjour' });
  const r = await openai.responses.create({
    model: 'gpt-via-anthropic',
    instructions: 'Answer in French.',
    input: 'hello',
    store: false,
  });
  t.equal(r.output_text, 'bonjour');
  t.equal(r.status, 'completed');
  t.equal(r.model, 'gpt-via-anthropic');
  const sent = last(anth.requests);
  t.equal(sent.path, '/v1/messages');
  t.equal((sent.body as Json).model, 'claude-upstream-1');
  t.same(
    (sent.body as Json).system,
    [{ type: 'text', text: 'Answer in French.' }],
    'instructions became the Messages system',
  );
  t.same((sent.body as Json).messages, [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], 'one user turn');
  t.equal(sent.headers['x-api-key'], 'sk-upstream-anthropic');
});

t.test('Gemini → echo (@google/genai)', async (t) => {
  const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url } });
  const r = await ai.models.generateContent({ model: 'echo', contents: 'repeat after me' });
  t.equal(r.text, 'repeat after me');
  t.equal(r.candidates?.[0]?.finishReason, 'STOP');
  t.ok((r.usageMetadata?.promptTokenCount ?? 0) > 0, 'usage metadata in Gemini form');
  const chunks: string[] = [];
  for await (const c of await ai.models.generateContentStream({ model: 'echo', contents: 'a streamed echo' }))
    chunks.push(c.text ?? '');
  t.equal(chunks.join(''), 'a streamed echo');
  t.ok(chunks.length > 1, 'streamed in several chunks');
});

t.test("an upstream error reaches the client in its own family's shape", async (t) => {
  oai.script({ kind: 'error', status: 400, message: 'bad temperature' });
  const err = await anthropic.messages
    .create({ model: 'claude-via-openai', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.ok(err instanceof Anthropic.BadRequestError, 'the Anthropic SDK raises its own 400 class');
  const body = (err as InstanceType<typeof Anthropic.BadRequestError>).error as Json;
  t.equal(body.type, 'error', 'Anthropic error envelope');
  t.equal(body.error.type, 'invalid_request_error');
  t.match(body.error.message, /bad temperature/);

  const unknown = await fetch(`${gw.url}/v1beta/models/nope:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
  });
  t.equal(unknown.status, 404);
  const g = (await unknown.json()) as Json;
  t.match(g, { error: { code: 404, status: 'NOT_FOUND', message: /nope/ } }, 'Gemini error envelope');
});

t.test('same format: the body is relayed byte for byte but for the model', async (t) => {
  anth.script({ kind: 'text', text: 'relayed' });
  const body = {
    model: 'claude-pass',
    max_tokens: 32,
    messages: [{ role: 'user', content: 'hi' }],
    future_field: { kept: true },
  };
  const res = await postMessages(gw.url, body, { 'anthropic-beta': 'some-beta-2099' });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-polygate-route'), 'anth/claude-upstream-2');
  const msg = (await res.json()) as Json;
  t.equal(msg.content[0].text, 'relayed');
  t.equal(msg.model, 'claude-upstream-2', 'a relay answers with the upstream model as it came');
  const sent = last(anth.requests);
  t.same(sent.body, { ...body, model: 'claude-upstream-2' }, 'an unknown field reached the upstream untouched');
  t.equal(sent.headers['anthropic-beta'], 'some-beta-2099', 'client headers relayed');
  t.equal(sent.headers['x-api-key'], 'sk-upstream-anthropic', 'credentials replaced');
  t.match(await accessLine('claude-pass'), { mode: 'passthrough', upstream_format: 'anthropic-messages', status: 200 });
});
