// The Bedrock emulator's CountTokens, proven by AWS's own client (CountTokensCommand): an
// InvokeModel body (a blob) and a Converse input are counted; a malformed body is refused.
import t from 'tap';
import { CountTokensCommand } from '@aws-sdk/client-bedrock-runtime';
import { startBedrockUpstream } from './bedrock-upstream.ts';
import { bedrockSdkClient } from './bedrock-sdk-client.ts';
import { emulatorForFile } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startBedrockUpstream);
const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const aws = bedrockSdkClient(emu);

t.test('an InvokeModel body', async (t) => {
  const body = JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'how many tokens is this?' }],
  });
  const out = await aws.send(
    new CountTokensCommand({ modelId, input: { invokeModel: { body: new TextEncoder().encode(body) } } }),
  );
  t.equal(out.inputTokens, emu.counts[0]);
  t.ok((out.inputTokens ?? 0) > 0);
  t.equal(emu.requests[0].path, `/model/${encodeURIComponent(modelId)}/count-tokens`);
  t.match(emu.requests[0].body, { input: { invokeModel: { body: Buffer.from(body).toString('base64') } } });
});

t.test('a Converse input', async (t) => {
  const out = await aws.send(
    new CountTokensCommand({
      modelId,
      input: {
        converse: { system: [{ text: 'terse' }], messages: [{ role: 'user', content: [{ text: 'count me' }] }] },
      },
    }),
  );
  t.equal(out.inputTokens, emu.counts[0]);
});

t.test('a body that is not an InvokeModel body is a ValidationException', async (t) => {
  const e = await aws
    .send(new CountTokensCommand({ modelId, input: { invokeModel: { body: new TextEncoder().encode('{}') } } }))
    .catch((err: unknown) => err);
  t.match(e, { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
});
