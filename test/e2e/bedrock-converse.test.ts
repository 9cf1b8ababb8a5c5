// Bedrock's Converse API as an upstream, for any model (issue #26, docs/providers.md "Bedrock"):
// every client family, through its official SDK, reaches the SigV4-verifying emulator with text,
// a streamed answer (ConverseStream), reasoning shown, an image, and a tool round trip the
// emulator validates as Bedrock does (alternating turns, toolResult after its toolUse).
import t from 'tap';
import { startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { cloudGateway, lastRequest } from './cloud-gateway.ts';
import { bedrockSigned } from './cloud-providers.ts';
import { pixel, thinkingText, toolArgPieces, toolArgs, weatherTool } from './matrix/fixtures.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
const emu = await startBedrockUpstream();
t.teardown(() => emu.close());
const modelId = 'mistral.mistral-large-2407-v1:0';
const { drivers } = await cloudGateway(t, {
  providers: { conv: { ...bedrockSigned(emu), api: 'converse' } },
  models: { 'm-conv': { routes: [{ provider: 'conv', model: modelId }] } },
});
const last = (): ReturnType<typeof lastRequest> => lastRequest(emu);

for (const d of drivers) {
  t.test(`client ${d.family}`, async (t) => {
    t.beforeEach(() => emu.reset());
    t.test('text, with the system prompt in Converse system', async (t) => {
      emu.script({ kind: 'text', text: 'hello from converse' });
      const out = await d.text('m-conv', 'You are terse.', 'hi');
      t.equal(out.text, 'hello from converse');
      t.equal(out.finish, d.stopWords.stop);
      t.ok(out.usage.input > 0 && out.usage.output > 0, 'usage');
      const got = last();
      t.equal(got.path, `/model/${encodeURIComponent(modelId)}/converse`);
      t.match(got.body, {
        system: [{ text: 'You are terse.' }],
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      });
    });
    t.test('stream', async (t) => {
      emu.script({ kind: 'text', text: 'streamed from converse' });
      const out = await d.stream('m-conv', 'go');
      t.equal(out.text, 'streamed from converse');
      t.ok(out.deltas.length > 1, 'arrived in pieces');
      t.equal(last().path, `/model/${encodeURIComponent(modelId)}/converse-stream`);
    });
    t.test('reasoning text in the stream reaches the client', async (t) => {
      emu.script({ kind: 'thinking', thinking: thinkingText, signature: 'sig-conv', text: 'Forty-two.' });
      const out = await d.reasoning('m-conv', 'think');
      t.equal(out.text, 'Forty-two.');
      // Chat clients are shown no reasoning text; the other families get it as theirs.
      if (d.family !== 'chat') t.equal(out.thinking, thinkingText);
    });
    t.test('image', async (t) => {
      emu.script({ kind: 'text', text: 'a pixel' });
      const out = await d.image('m-conv', pixel, 'what is it?');
      t.equal(out.text, 'a pixel');
      const content = ((last().body as Json).messages as Json[])[0].content as Json[];
      t.match(content, [{ image: { format: 'png', source: { bytes: pixel } } }]);
    });
    t.test('tool round trip', async (t) => {
      emu.script({
        kind: 'tool',
        name: weatherTool.name,
        args: toolArgs,
        argChunks: toolArgPieces,
        id: 'tooluse_conv01',
      });
      const call = await d.toolCall('m-conv', 'weather in Paris?', weatherTool);
      if (d.streamsArgumentText) t.same(call.pieces, toolArgPieces, 'the input fragments as ConverseStream sent them');
      t.equal(call.finish, d.stopWords.tool);
      t.same(call.call.args, JSON.parse(toolArgs));
      t.match(last().body, { toolConfig: { tools: [{ toolSpec: { name: weatherTool.name } }] } });
      emu.script({ kind: 'text', text: 'Sunny.' });
      const next = await d.toolResultTurn('m-conv', call, weatherTool, 'sunny, 21C');
      t.equal(next.text, 'Sunny.');
      t.match(last().raw, 'sunny, 21C', 'the tool result reached Bedrock');
    });
  });
}
