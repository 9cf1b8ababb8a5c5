// Issue #30, finding 5: legal bodies under the 32 MiB limit stalled every tenant. A `metadata`
// object of 1.5 M keys held /healthz 6.2 s before its 400 (once parsed, merely listing the keys of
// such an object takes seconds), 500 k Messages turns were translated to a Chat upstream, 1 M
// content parts went to echo. Now a JSON body's text is checked before it is parsed: at most
// limits.max_json_keys keys per object and limits.max_json_items items per array, a 400 in the
// family's own shape naming the field, and nothing reaches an upstream.
import t from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';
const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { chat: 'chat' },
  models: { 'chat-relay': { routes: [{ provider: 'chat', model: 'gpt-up' }] } },
  config: { limits: { max_json_keys: 1000, max_json_items: 5000 } },
});
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });

const manyKeys = (n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

t.test(
  'an object with more keys than limits.max_json_keys is a 400 naming it; the upstream sees nothing',
  async (t) => {
    up.chat.reset();
    const err = (await openai.chat.completions
      .create({
        model: 'chat-relay',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: manyKeys(200_000),
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    t.equal(err.status, 400);
    t.equal(err.param, 'metadata');
    t.match(err.message, /more than 1000 keys in one object \(limits\.max_json_keys\)/);
    t.equal(up.chat.requests.length, 0, 'nothing was relayed');
  },
);

t.test("OpenAI's own metadata rule still holds below the bound (16 pairs)", async (t) => {
  const err = (await openai.chat.completions
    .create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }], metadata: manyKeys(17) })
    .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  t.equal(err.status, 400);
  t.equal(err.param, 'metadata');
});

t.test('a Messages body with more turns than limits.max_json_items is a 400 naming messages', async (t) => {
  const messages = Array.from({ length: 6000 }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: 'x',
  }));
  const err = (await anthropic.messages
    .create({ model: 'chat-relay', max_tokens: 8, messages: [...messages, { role: 'user', content: 'end' }] })
    .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
  t.equal(err.status, 400);
  t.match(err.error, {
    type: 'error',
    error: { type: 'invalid_request_error', message: /^messages: more than 5000 items/ },
  });
  t.equal(up.chat.requests.length, 0, 'nothing was translated upstream');
});

t.test('content parts past the bound are a 400 naming the message content', async (t) => {
  const content = Array.from({ length: 6000 }, () => ({ type: 'text' as const, text: 'x' }));
  const err = (await openai.chat.completions
    .create({ model: 'echo', messages: [{ role: 'user', content }] })
    .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  t.equal(err.status, 400);
  t.equal(err.param, 'messages.0.content');
});

t.test('at the bounds a request is served', async (t) => {
  const content = Array.from({ length: 5000 }, () => ({ type: 'text' as const, text: 'x' }));
  const r = await openai.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content }] });
  t.equal(r.object, 'chat.completion');
  up.chat.reset();
  await openai.chat.completions.create({
    model: 'chat-relay',
    messages: [{ role: 'user', content: 'hi' }],
    store: true,
    metadata: manyKeys(16),
  });
  t.same(Object.keys((up.chat.requests[0].body as Json).metadata).length, 16);
});

t.test('a __proto__ key is refused, escaped or not, and strings holding brackets are not counted', async (t) => {
  for (const raw of [
    '{"model":"echo","messages":[],"__proto__":{"x":1}}',
    '{"model":"echo","messages":[],"\\u005f_proto__":{"x":1}}',
  ]) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
      body: raw,
    });
    t.equal(r.status, 400);
    t.match(await r.json(), { error: { param: 'body', message: /__proto__/ } });
  }
  const text = `[${'{"a":1},'.repeat(3000)}] "quoted \\" ,,,,,, [[[[ `.repeat(3);
  const r = await openai.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: text }] });
  t.equal(r.choices[0].message.content, text, 'commas and brackets inside a string are text');
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
});
