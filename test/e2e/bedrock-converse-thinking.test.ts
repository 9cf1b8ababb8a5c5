// Claude's thinking through Bedrock Converse (issue #26, docs/providers.md "Bedrock"): Messages and
// Responses clients (official SDKs) ask for reasoning, polygate sends Claude's `thinking` in
// additionalModelRequestFields, the reasoning comes back (streamed and not) and goes back to Bedrock
// in the next turn with its signature and redacted bytes, which the emulator checks as Bedrock does.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { cloudGateway, lastRequest } from './cloud-gateway.ts';
import { bedrockSigned } from './cloud-providers.ts';
import { reasoningBudget, thinkingText } from './matrix/fixtures.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
const emu = await startBedrockUpstream();
t.teardown(() => emu.close());
const modelId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const { app, drivers: all } = await cloudGateway(t, {
  providers: { conv: { ...bedrockSigned(emu), api: 'converse' } },
  models: { 'claude-conv': { routes: [{ provider: 'conv', model: modelId }] } },
});
const last = (): ReturnType<typeof lastRequest> => lastRequest(emu);
const drivers = all.filter((d) => d.family === 'messages' || d.family === 'responses');

for (const d of drivers)
  t.test(`client ${d.family}: streamed reasoning, then the next turn with its signature`, async (t) => {
    emu.reset();
    emu.script({ kind: 'thinking', thinking: thinkingText, signature: `sig-${d.family}`, text: 'Forty-two.' });
    const out = await d.reasoning('claude-conv', 'think');
    t.equal(out.text, 'Forty-two.');
    t.equal(out.thinking, thinkingText);
    t.ok(out.token, 'the client holds a token for the reasoning');
    const sent = last().body as Json;
    t.equal(last().path, `/model/${encodeURIComponent(modelId)}/converse-stream`);
    t.match(sent.additionalModelRequestFields, { thinking: { type: 'enabled' } });
    if (d.family === 'messages')
      t.match(sent.additionalModelRequestFields, { thinking: { budget_tokens: reasoningBudget } });
    t.notOk((sent.inferenceConfig as Json | undefined)?.temperature, 'no temperature with thinking');

    emu.script({ kind: 'text', text: 'Still forty-two.' });
    const next = await d.reasoningContinue('claude-conv', out, 'sure?');
    t.equal(next.text, 'Still forty-two.', 'Bedrock took the signature back');
    const turns = (last().body as Json).messages as Json[];
    t.match(turns[1], {
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: thinkingText, signature: `sig-${d.family}` } } },
        { text: 'Forty-two.' },
      ],
    });
  });

const client = new Anthropic({ baseURL: app.url, apiKey: TEST_KEY, maxRetries: 0 });
const params = { model: 'claude-conv', max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 } };
/** Scripts reasoning with a redactedContent block of `bytes` after its text; the blocks a Messages client must get. */
function redactedAnswer(bytes: string, thinking: string, signature: string, text: string): Json[] {
  emu.reset();
  const redacted = Buffer.from(bytes).toString('base64');
  emu.script({ kind: 'thinking', thinking, signature, text, redacted });
  return [
    { type: 'thinking', thinking, signature },
    { type: 'redacted_thinking', data: redacted },
    { type: 'text', text },
  ];
}

t.test('Messages, not streamed: thinking and redacted_thinking out, both back to Converse', async (t) => {
  const blocks = redactedAnswer('opaque bytes', 'Hmm.', 'sig-plain', 'Done.');
  const msg = await client.messages.create({ ...params, messages: [{ role: 'user', content: 'think' }] });
  t.match(msg.content, blocks);
  t.equal(last().path, `/model/${encodeURIComponent(modelId)}/converse`);
  t.match(last().body, {
    inferenceConfig: { maxTokens: 4096 },
    additionalModelRequestFields: { thinking: { budget_tokens: 2048 } },
  });

  emu.script({ kind: 'text', text: 'Again.' });
  const next = await client.messages.create({
    ...params,
    messages: [
      { role: 'user', content: 'think' },
      { role: 'assistant', content: msg.content },
      { role: 'user', content: 'more' },
    ],
  });
  t.match(next.content, [{ type: 'text', text: 'Again.' }]);
  t.match(((last().body as Json).messages as Json[])[1], {
    content: [
      { reasoningContent: { reasoningText: { signature: 'sig-plain' } } },
      { reasoningContent: { redactedContent: blocks[1].data } },
      { text: 'Done.' },
    ],
  });
});

t.test('Messages, streamed: a redactedContent delta becomes a redacted_thinking block', async (t) => {
  const blocks = redactedAnswer('streamed opaque bytes', 'Quietly.', 'sig-stream', 'Out.');
  const msg = await client.messages
    .stream({ ...params, messages: [{ role: 'user', content: 'think' }] })
    .finalMessage();
  t.match(msg.content, blocks);
});
