// Cross-format data end to end (docs/architecture.md "Cross-format data"): the official SDKs
// against a running polygate whose emulated upstreams record what reached them. A knob two formats
// share (the service tier) is mapped to the upstream's own word; a value or an option the
// upstream's format cannot name never reaches it under a borrowed name, and the client is told in
// x-polygate-warnings.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { gatewayWithUpstreams } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

import type { JsonObject as Json } from '../helpers/json.ts';

const { gw, anth, oai } = await gatewayWithUpstreams(t, {
  models: modelRoutes({
    'claude-via-openai': 'oai/gpt-upstream-1',
    'gpt-via-anthropic': 'anth/claude-upstream-1',
  }),
});
const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const lastBody = (emu: typeof oai): Json => emu.requests[emu.requests.length - 1].body as Json;

t.beforeEach(() => {
  oai.reset();
  anth.reset();
});

t.test(
  'Messages service_tier standard_only to an OpenAI Chat upstream: the OpenAI word, never the Anthropic one',
  async (t) => {
    const { data, response } = await anthropic.messages
      .create({
        model: 'claude-via-openai',
        max_tokens: 64,
        service_tier: 'standard_only',
        messages: [{ role: 'user', content: 'hi' }],
      })
      .withResponse();
    t.equal(data.type, 'message');
    const body = lastBody(oai);
    t.equal(body.service_tier, 'default', "Anthropic's standard capacity is OpenAI's default tier");
    t.notMatch(JSON.stringify(body), /standard_only/, 'the Anthropic word does not reach the OpenAI upstream');
    t.notMatch(response.headers.get('x-polygate-warnings') ?? '', /service_tier/, 'an exact mapping is no drop');
  },
);

/**
 * Messages options the OpenAI Chat upstream has no field for: dropped, named in a warning. A tier
 * newer than polygate (and than this SDK's types) is open world, not bad input.
 */
const dropped: Array<{ name: string; option: string; value: string }> = [
  { name: 'a Messages tier word OpenAI has no equivalent for', option: 'service_tier', value: 'priority_only' },
  {
    name: 'an Anthropic-only option (container) to an OpenAI Chat upstream',
    option: 'container',
    value: 'container_1',
  },
];
for (const { name, option, value } of dropped)
  t.test(`${name}: dropped, named in a warning`, async (t) => {
    const params = {
      model: 'claude-via-openai',
      max_tokens: 64,
      [option]: value,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const { response } = await anthropic.messages
      .create(params as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse();
    t.equal(response.status, 200);
    const body = lastBody(oai);
    t.notOk(option in body, 'not sent under the borrowed name');
    t.notMatch(JSON.stringify(body), value);
    t.match(
      response.headers.get('x-polygate-warnings'),
      new RegExp(
        `${option}: an option only anthropic-messages has: the openai-chat upstream has no field for it; dropped`,
      ),
    );
  });

t.test(
  'Chat Completions tiers to an Anthropic upstream: default is standard_only, flex has no equivalent',
  async (t) => {
    const std = await openai.chat.completions
      .create({ model: 'gpt-via-anthropic', service_tier: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    t.equal(lastBody(anth).service_tier, 'standard_only');
    t.notMatch(std.response.headers.get('x-polygate-warnings') ?? '', /service_tier/);
    const flex = await openai.chat.completions
      .create({ model: 'gpt-via-anthropic', service_tier: 'flex', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    t.notOk('service_tier' in lastBody(anth), 'flex is not sent to Anthropic');
    t.match(
      flex.response.headers.get('x-polygate-warnings'),
      /service_tier: service tier 'flex' has no equivalent on the anthropic-messages upstream; dropped/,
    );
  },
);

t.test('a Chat-only option (logit_bias) to an Anthropic upstream: dropped, named in a warning', async (t) => {
  const { response } = await openai.chat.completions
    .create({ model: 'gpt-via-anthropic', logit_bias: { '50256': -100 }, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  t.notOk('logit_bias' in lastBody(anth));
  t.match(
    response.headers.get('x-polygate-warnings'),
    /logit_bias: an option only openai-chat has: the anthropic-messages upstream has no field for it; dropped/,
  );
});
