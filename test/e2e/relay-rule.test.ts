// The relay rule for every chat family (docs/open-world.md): on a same-format route only what
// routing needs is read, so what polygate's own decoder would refuse (a newer field, item type or
// value) still reaches an upstream that takes it, with the family's beta header. Each family's
// official SDK against a running polygate and an emulated upstream of its own format.
import t from 'tap';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

import type { Json } from '../helpers/json.ts';

const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { chat: 'chat', resp: 'responses', gem: 'gemini' },
  models: modelRoutes({
    'chat-relay': 'chat/gpt-up',
    'resp-relay': 'resp/gpt-up-r',
    'gem-relay': 'gem/gemini-up',
    'resp-via-chat': 'chat/gpt-up',
  }),
});
const { chat, resp: responses, gem: gemini } = up;
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

t.test('chat: a newer field and content part type reach the upstream untouched', async (t) => {
  const messages = [
    {
      role: 'user',
      content: [
        { type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } },
        { type: 'text', text: 'hi' },
      ],
    },
  ];
  const res = await openai.chat.completions
    .create({ model: 'chat-relay', messages, verbosity_2030: { level: 9 } } as any, {
      headers: { 'openai-beta': 'assistants=v9' },
    })
    .withResponse();
  t.equal(res.data.choices[0].message.content, 'hi');
  t.equal(res.response.headers.get('x-polygate-route'), 'chat/gpt-up');
  const got = chat.requests[0];
  t.same((got.body as Json).verbosity_2030, { level: 9 });
  t.same((got.body as Json).messages, messages);
  t.equal((got.body as Json).model, 'gpt-up');
  t.equal(got.headers['openai-beta'], 'assistants=v9');
});

t.test('responses with store: false: an item type polygate cannot translate is relayed', async (t) => {
  const input = [
    { type: 'message', role: 'user', content: 'find it' },
    { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
    { type: 'message', role: 'user', content: 'and now?' },
  ];
  const res = await openai.responses
    .create({ model: 'resp-relay', store: false, input, future_knob: true } as any, {
      headers: { 'openai-beta': 'responses_websockets=2026-02-06' },
    })
    .withResponse();
  t.equal(res.data.output_text, 'and now?');
  const got = responses.requests[0];
  t.same((got.body as Json).input, input, 'the input items as sent');
  t.equal((got.body as Json).future_knob, true);
  t.equal(got.headers['openai-beta'], 'responses_websockets=2026-02-06');
});

/** A stored Responses request (no `store: false`) with what polygate does not know (issue #29). */
const storedBody = (model: string, input: unknown, extra: Json = {}): Json => ({
  model,
  input,
  client_metadata: { session: 'abc', origin: 'codex' },
  prompt_cache_retention: '24h',
  tools: [
    {
      type: 'namespace',
      name: 'crm',
      description: 'CRM tools',
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
    },
  ],
  ...extra,
});
const postResponses = (body: Json) =>
  fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify(body),
  });

for (const stream of [false, true]) {
  t.test(
    `responses stored (store by default${stream ? ', streamed' : ''}): relayed as sent, stored, continued`,
    async (t) => {
      responses.reset();
      chat.reset();
      const first = storedBody('resp-relay', 'first question', stream ? { stream: true } : {});
      const r1 = await postResponses(first);
      t.equal(r1.status, 200);
      t.equal(r1.headers.get('x-polygate-route'), 'resp/gpt-up-r', 'a same-format route');
      const text = await r1.text();
      const id = stream
        ? (JSON.parse(/event: response\.completed\ndata: (.*)\n/.exec(text)?.[1] ?? '{}') as Json).response.id
        : (JSON.parse(text) as Json).id;
      t.type(id, 'string');
      const got = responses.requests[0];
      t.equal(
        got.raw,
        JSON.stringify(first).replace('"model":"resp-relay"', '"model":"gpt-up-r"'),
        'byte for byte as sent but the model: client_metadata, prompt_cache_retention, the namespace tool',
      );
      const stored = await fetch(`${gw.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      t.equal(stored.status, 200, 'polygate stored the relayed answer');

      // The next turn names it: the same provider has it (it was sent store on), so the body goes as sent.
      const second = storedBody('resp-relay', 'second question', { previous_response_id: id });
      const r2 = await postResponses(second);
      const answer2 = (await r2.json()) as Json;
      t.equal(r2.status, 200);
      t.equal(
        responses.requests[1].raw,
        JSON.stringify(second).replace('"model":"resp-relay"', '"model":"gpt-up-r"'),
        'the follow-up relayed as sent, previous_response_id for the upstream to resolve',
      );

      // A third turn on another format: polygate resolves the whole chain it stored from the relays.
      const r3 = await postResponses({
        model: 'resp-via-chat',
        input: 'third question',
        previous_response_id: answer2.id,
      });
      t.equal(r3.status, 200);
      const texts = ((chat.requests[0].body as Json).messages as Json[]).map(
        (m) => `${m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
      );
      t.same(
        texts,
        [
          'user:first question',
          'assistant:first question',
          'user:second question',
          'assistant:second question',
          'user:third question',
        ],
        'each relayed turn was stored from what was sent and what came back',
      );
    },
  );
}

t.test('responses stored: a chain that began on another provider is translated, not relayed', async (t) => {
  responses.reset();
  chat.reset();
  const r1 = await postResponses({ model: 'resp-via-chat', input: 'start elsewhere' });
  const id = ((await r1.json()) as Json).id;
  const r2 = await postResponses(storedBody('resp-relay', 'go on', { previous_response_id: id }));
  t.equal(r2.status, 200);
  const body = responses.requests[0].body as Json;
  t.equal(body.previous_response_id, undefined, 'the upstream never saw that id: polygate sends the conversation');
  t.match(JSON.stringify(body.input), /start elsewhere/);
});

t.test('gemini: a newer field is relayed (sent raw: the GenAI SDK keeps only fields it knows)', async (t) => {
  const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url } });
  t.equal(
    (await ai.models.generateContent({ model: 'gem-relay', contents: 'hello' })).text,
    'hello',
    'the SDK through the relay',
  );
  gemini.reset();
  const res = await fetch(`${gw.url}/v1beta/models/gem-relay:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'raw' }] }],
      generationConfig: { futureKnob: 3 },
      futureTopLevel: { a: 1 },
    }),
  });
  t.equal(res.status, 200);
  const got = gemini.requests[0];
  t.match(got.path, /\/v1beta\/models\/gemini-up:generateContent/);
  t.same((got.body as Json).generationConfig, { futureKnob: 3 });
  t.same((got.body as Json).futureTopLevel, { a: 1 });
});
