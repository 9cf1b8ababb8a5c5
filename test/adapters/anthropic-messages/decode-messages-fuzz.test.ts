// Hostile input: whatever JSON arrives, the Messages peek and decoder answer with a ChatRequest or
// a GatewayError naming a field, never another exception (docs/resilience.md, "Bounded work per request").
import t from 'tap';
import fc from 'fast-check';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { ctx } from './fixtures.ts';

const json = fc.jsonValue({ maxDepth: 4 });
const block = fc.oneof(
  json,
  fc.record(
    {
      type: fc.constantFrom(
        'text',
        'image',
        'document',
        'tool_use',
        'tool_result',
        'thinking',
        'redacted_thinking',
        'server_tool_use',
        'hologram',
      ),
      text: json,
      source: json,
      input: json,
      id: json,
      name: json,
      tool_use_id: json,
      content: json,
      cache_control: json,
      signature: json,
      thinking: json,
      data: json,
    },
    { requiredKeys: ['type'] },
  ),
);
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system'), json),
    content: fc.oneof(fc.string(), fc.array(block, { maxLength: 4 }), json),
  },
  { requiredKeys: ['role'] },
);
const tool = fc.oneof(
  json,
  fc.record({
    type: fc.oneof(fc.constantFrom('custom', 'web_search_20250305', 'computer_20250124', 'mcp_toolset'), json),
    name: json,
    input_schema: json,
    eager_input_streaming: json,
    cache_control: json,
  }),
);
const body = fc.record(
  {
    model: fc.oneof(fc.constant('claude'), json),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 100_000 }), json),
    messages: fc.oneof(fc.array(message, { maxLength: 5 }), json),
    system: json,
    tools: fc.oneof(fc.array(tool, { maxLength: 3 }), json),
    tool_choice: json,
    thinking: fc.oneof(
      fc.record({
        type: fc.constantFrom('enabled', 'disabled', 'adaptive', 'later'),
        budget_tokens: json,
        display: json,
      }),
      json,
    ),
    output_config: fc.oneof(fc.record({ effort: json, format: json }), json),
    metadata: json,
    temperature: json,
    top_p: json,
    stream: json,
  },
  { requiredKeys: [] },
);

const onlyGatewayErrors = (run: () => unknown): boolean => {
  try {
    run();
    return true;
  } catch (e) {
    return e instanceof GatewayError && e.status === 400 && typeof e.param === 'string';
  }
};

t.test('peek and decode of any body: a request or a 400 naming a field', async (t) => {
  for (const arb of [json, body]) {
    fc.assert(
      fc.property(
        arb,
        (b) =>
          onlyGatewayErrors(() => anthropicClientCodec.peekRequest(b, ctx())) &&
          onlyGatewayErrors(() => anthropicClientCodec.decodeRequest(b, ctx())),
      ),
      { numRuns: 1500 },
    );
  }
  t.pass('no exception other than a 400');
});
