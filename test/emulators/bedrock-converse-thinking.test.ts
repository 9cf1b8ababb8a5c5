// The Bedrock emulator's Claude thinking on Converse, proven by AWS's own client
// (@aws-sdk/client-bedrock-runtime): the SDK reads the emulator's reasoningContent blocks (text with
// signature, redacted bytes) from Converse and ConverseStream, sends them back in the next turn, and
// the emulator refuses what Bedrock refuses (a forged signature, a budget below 1024).
import t from 'tap';
import {
  ConverseCommand,
  ConverseStreamCommand,
  type ContentBlock,
  type Message,
} from '@aws-sdk/client-bedrock-runtime';
import { startBedrockUpstream } from './bedrock-upstream.ts';
import { bedrockSdkClient } from './bedrock-sdk-client.ts';
import { emulatorForFile } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startBedrockUpstream);
const modelId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const aws = bedrockSdkClient(emu);
const redactedBytes = new TextEncoder().encode('opaque redacted reasoning');
const redacted = Buffer.from(redactedBytes).toString('base64');
const thinking = { thinking: { type: 'enabled', budget_tokens: 2048 } };
const ask: Message = { role: 'user', content: [{ text: 'think first' }] };
/** A Converse(Stream) input with thinking on and room for it. */
const thinkingInput = (messages: Message[]) => ({
  modelId,
  messages,
  inferenceConfig: { maxTokens: 4096 },
  additionalModelRequestFields: thinking,
});

t.test('Converse: reasoningText with its signature and redactedContent, sent back in the next turn', async (t) => {
  emu.script({ kind: 'thinking', thinking: 'Let me see.', signature: 'sig-sdk-1', text: 'Done.', redacted });
  const out = await aws.send(new ConverseCommand(thinkingInput([ask])));
  const content = out.output?.message?.content ?? [];
  t.same(content[0].reasoningContent?.reasoningText, { text: 'Let me see.', signature: 'sig-sdk-1' });
  t.same(content[1].reasoningContent?.redactedContent, redactedBytes, 'the blob, decoded from base64');
  t.equal(content[2].text, 'Done.');
  t.match(emu.requests[0].body, { additionalModelRequestFields: thinking });

  const next = await aws.send(
    new ConverseCommand(
      thinkingInput([ask, { role: 'assistant', content }, { role: 'user', content: [{ text: 'again' }] }]),
    ),
  );
  t.equal(next.output?.message?.content?.[0].text, 'again');
  t.match(emu.requests[1].body, {
    messages: [
      {},
      {
        content: [
          { reasoningContent: { reasoningText: { signature: 'sig-sdk-1' } } },
          { reasoningContent: { redactedContent: redacted } },
        ],
      },
    ],
  });
});

t.test('a signature the emulator never issued, or a budget below 1024, is a ValidationException', async (t) => {
  const forged: ContentBlock[] = [
    { reasoningContent: { reasoningText: { text: 'x', signature: 'forged' } } },
    { text: 'y' },
  ];
  const e1 = await aws
    .send(new ConverseCommand({ modelId, messages: [ask, { role: 'assistant', content: forged }, ask] }))
    .catch((e: unknown) => e);
  t.match(e1, { name: 'ValidationException', message: /Invalid `signature`/ });
  const e2 = await aws
    .send(
      new ConverseCommand({
        modelId,
        messages: [ask],
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 10 } },
      }),
    )
    .catch((e: unknown) => e);
  t.match(e2, { name: 'ValidationException', message: /budget_tokens/ });
});

t.test('ConverseStream: reasoning text, signature and redacted deltas as the SDK decodes them', async (t) => {
  emu.script({ kind: 'thinking', thinking: 'Step one.', signature: 'sig-sdk-2', text: 'Yes.', redacted });
  const out = await aws.send(new ConverseStreamCommand(thinkingInput([ask])));
  let text = '';
  let reasoning = '';
  const signatures: string[] = [];
  const blobs: Uint8Array[] = [];
  for await (const e of out.stream ?? []) {
    const d = e.contentBlockDelta?.delta;
    if (d?.text) text += d.text;
    if (d?.reasoningContent?.text) reasoning += d.reasoningContent.text;
    if (d?.reasoningContent?.signature) signatures.push(d.reasoningContent.signature);
    if (d?.reasoningContent?.redactedContent) blobs.push(d.reasoningContent.redactedContent);
  }
  t.equal(reasoning, 'Step one.');
  t.same(signatures, ['sig-sdk-2']);
  t.same(blobs, [redactedBytes]);
  t.equal(text, 'Yes.');
});
