// The Vercel AI SDK's Anthropic provider as a second, strict client of the Messages family: with
// streaming it adds `eager_input_streaming: true` to every tool, which a translated route leaves out
// silently and a same-format route relays (src/families/chat/chat-handler.ts, docs/open-world.md).
import t from 'tap';
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, streamText, tool } from 'ai';
import { gatewayWithUpstreams } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';

const { gw, anth, oai } = await gatewayWithUpstreams(t, {
  models: {
    'claude-relay': { routes: [{ provider: 'anth', model: 'claude-upstream-1' }] },
    'claude-via-openai': { routes: [{ provider: 'oai', model: 'gpt-upstream-1' }] },
  },
});

const provider = createAnthropic({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1` });
const tools = {
  weather: tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
  }),
};

for (const model of ['echo', 'claude-relay', 'claude-via-openai']) {
  t.test(`streamText with a tool through ${model}`, async (t) => {
    anth.reset();
    oai.reset();
    const result = streamText({ model: provider(model), prompt: 'hello there', tools });
    let text = '';
    for await (const chunk of result.textStream) text += chunk;
    t.equal(text, 'hello there', 'the answer streamed through');
    t.equal(await result.finishReason, 'stop');
    if (model === 'claude-relay') {
      const body = anth.requests[0].body as Json;
      t.equal(body.tools[0].eager_input_streaming, true, 'the hint reached the Anthropic upstream untouched');
    }
    if (model === 'claude-via-openai') {
      const body = oai.requests[0].body as Json;
      t.same(Object.keys(body.tools[0]), ['type', 'function'], 'translated: the hint is not sent');
      t.equal(body.tools[0].function.name, 'weather');
    }
  });
}
