// The Bedrock emulator, proven by AWS's own client (@aws-sdk/client-bedrock-runtime: SigV4 signing,
// the event-stream decoding) and Anthropic's Bedrock SDK: if either cannot talk to it, it is wrong.
import t from 'tap';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { bedrockApiKey, bedrockCredentials, startBedrockUpstream } from './bedrock-upstream.ts';
import { bedrockSdkClient } from './bedrock-sdk-client.ts';
import { emulatorForFile } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startBedrockUpstream);
const modelId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const aws = bedrockSdkClient(emu);
const body = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });

t.test('InvokeModel through the AWS SDK: signed, answered with the Messages JSON', async (t) => {
  emu.script({ kind: 'text', text: 'Hello from Bedrock.' });
  const out = await aws.send(new InvokeModelCommand({ modelId, body: body(), contentType: 'application/json' }));
  const msg = JSON.parse(new TextDecoder().decode(out.body)) as { content: Array<{ text: string }>; model: string };
  t.equal(msg.content[0].text, 'Hello from Bedrock.');
  t.equal(msg.model, modelId);
  t.match(emu.requests[0].path, '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
  t.match(String(emu.requests[0].headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKEMULATOR1\//);
});

t.test('InvokeModelWithResponseStream: chunks the SDK decodes into Messages events', async (t) => {
  emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
  const out = await aws.send(
    new InvokeModelWithResponseStreamCommand({ modelId, body: body(), contentType: 'application/json' }),
  );
  const types: string[] = [];
  let text = '';
  for await (const e of out.body ?? []) {
    if (!e.chunk?.bytes) continue;
    const ev = JSON.parse(new TextDecoder().decode(e.chunk.bytes)) as { type: string; delta?: { text?: string } };
    types.push(ev.type);
    text += ev.type === 'content_block_delta' ? (ev.delta?.text ?? '') : '';
  }
  t.equal(text, 'one two three');
  t.equal(types[0], 'message_start');
  t.equal(types[types.length - 1], 'message_stop');
});

t.test('a wrong secret is refused as AWS does', async (t) => {
  const wrong = bedrockSdkClient(emu, {
    credentials: { accessKeyId: bedrockCredentials.accessKeyId, secretAccessKey: 'not-the-secret' },
  });
  const e = await wrong.send(new InvokeModelCommand({ modelId, body: body() })).catch((err: unknown) => err);
  t.match(e, { name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
});

t.test('a Bedrock API key: the SDK sends it as a bearer (httpBearerAuth), a wrong one is refused', async (t) => {
  const withKey = (token: string): BedrockRuntimeClient =>
    bedrockSdkClient(emu, { token: { token }, authSchemePreference: ['httpBearerAuth'] });
  emu.script({ kind: 'text', text: 'keyed' });
  const out = await withKey(bedrockApiKey).send(new InvokeModelCommand({ modelId, body: body() }));
  t.match(new TextDecoder().decode(out.body), /keyed/);
  t.equal(emu.requests[0].headers.authorization, `Bearer ${bedrockApiKey}`);
  t.notOk(emu.requests[0].headers['x-amz-date'], 'no signature');
  const e = await withKey('ABSKnot-the-key')
    .send(new InvokeModelCommand({ modelId, body: body() }))
    .catch((err: unknown) => err);
  t.match(e, { $metadata: { httpStatusCode: 403 } });
});

t.test('throttling and validation errors have their AWS types', async (t) => {
  emu.script({ kind: 'error', status: 429 });
  const e1 = await aws.send(new InvokeModelCommand({ modelId, body: body() })).catch((err: unknown) => err);
  t.match(e1, { name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } });
  const e2 = await aws
    .send(new InvokeModelCommand({ modelId, body: JSON.stringify({ max_tokens: 5, messages: [] }) }))
    .catch((err: unknown) => err);
  t.match(e2, { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
});

t.test("Anthropic's Bedrock SDK: messages.create and a stream, session token included", async (t) => {
  const client = new AnthropicBedrock({
    awsAccessKey: bedrockCredentials.accessKeyId,
    awsSecretKey: bedrockCredentials.secretAccessKey,
    awsSessionToken: 'session-token-for-test',
    awsRegion: 'us-east-1',
    baseURL: emu.url,
    maxRetries: 0,
  });
  emu.script({ kind: 'text', text: 'Claude via Bedrock.' }, { kind: 'text', text: 'streamed reply' });
  const msg = await client.messages.create({
    model: modelId,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.match(msg.content[0], { type: 'text', text: 'Claude via Bedrock.' });
  t.equal(emu.requests[0].headers['x-amz-security-token'], 'session-token-for-test');
  const s = client.messages.stream({ model: modelId, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
  const final = await s.finalMessage();
  t.match(final.content[0], { type: 'text', text: 'streamed reply' });
  t.equal(final.stop_reason, 'end_turn');
});

t.test('Converse through the AWS SDK: text, then a tool use answered with its result', async (t) => {
  emu.script(
    { kind: 'tool', name: 'get_weather', args: '{"city":"Paris"}', id: 'tooluse_abc' },
    { kind: 'text', text: 'Sunny in Paris.' },
  );
  const toolConfig = {
    tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
  };
  const first = await aws.send(
    new ConverseCommand({
      modelId: 'mistral.mistral-large-2407-v1:0',
      messages: [{ role: 'user', content: [{ text: 'weather?' }] }],
      toolConfig,
    }),
  );
  t.equal(first.stopReason, 'tool_use');
  const use = first.output?.message?.content?.[0]?.toolUse;
  t.same(use?.input, { city: 'Paris' });
  const second = await aws.send(
    new ConverseCommand({
      modelId: 'mistral.mistral-large-2407-v1:0',
      messages: [
        { role: 'user', content: [{ text: 'weather?' }] },
        { role: 'assistant', content: first.output?.message?.content ?? [] },
        { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_abc', content: [{ text: 'sunny' }] } }] },
      ],
      toolConfig,
    }),
  );
  t.equal(second.output?.message?.content?.[0]?.text, 'Sunny in Paris.');
  t.ok((second.usage?.inputTokens ?? 0) > 0);
  t.equal(emu.requests[1].path, '/model/mistral.mistral-large-2407-v1%3A0/converse');
});

t.test('Converse refuses turns that do not alternate, as Bedrock does', async (t) => {
  const e = await aws
    .send(
      new ConverseCommand({
        modelId: 'm',
        messages: [
          { role: 'user', content: [{ text: 'a' }] },
          { role: 'user', content: [{ text: 'b' }] },
        ],
      }),
    )
    .catch((err: unknown) => err);
  t.match(e, { name: 'ValidationException', message: /alternate/ });
});

t.test('ConverseStream through the AWS SDK: text deltas, a streamed tool use, the stop and usage', async (t) => {
  emu.script({
    kind: 'tool',
    name: 'get_weather',
    args: '{"city":"Paris"}',
    argChunks: ['{"ci', 'ty":"Paris"}'],
    text: 'Let me look.',
  });
  const out = await aws.send(
    new ConverseStreamCommand({
      modelId: 'meta.llama3-70b-instruct-v1:0',
      messages: [{ role: 'user', content: [{ text: 'weather?' }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] },
    }),
  );
  let text = '';
  let input = '';
  let tool: string | undefined;
  let stop: string | undefined;
  let usage: number | undefined;
  for await (const e of out.stream ?? []) {
    text += e.contentBlockDelta?.delta?.text ?? '';
    input += e.contentBlockDelta?.delta?.toolUse?.input ?? '';
    tool = e.contentBlockStart?.start?.toolUse?.name ?? tool;
    stop = e.messageStop?.stopReason ?? stop;
    usage = e.metadata?.usage?.outputTokens ?? usage;
  }
  t.equal(text, 'Let me look.');
  t.equal(tool, 'get_weather');
  t.equal(input, '{"city":"Paris"}');
  t.equal(stop, 'tool_use');
  t.ok(usage && usage > 0);
  t.match(emu.requests[0].path, '/converse-stream');
});
