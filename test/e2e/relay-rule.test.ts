// The relay rule for every chat family (docs/open-world.md): on a same-format route only what
// routing needs is read, so what polygate's own decoder would refuse (a newer field, item type or
// value) still reaches an upstream that takes it, with the family's beta header. Each family's
// official SDK against a running polygate and an emulated upstream of its own format.
import t from 'tap';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

type Json = Record<string, any>;

const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { chat: 'chat', resp: 'responses', gem: 'gemini' },
  models: {
    'chat-relay': { routes: [{ provider: 'chat', model: 'gpt-up' }] },
    'resp-relay': { routes: [{ provider: 'resp', model: 'gpt-up-r' }] },
    'gem-relay': { routes: [{ provider: 'gem', model: 'gemini-up' }] },
  },
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
