// Finding: 278 bytes of response_format.json_schema (three nested arrays with minItems 1000) made
// echo's schema sampler build a billion values: the event loop blocked for minutes, then the heap
// ran out. Forced tool calls use the same sampler. Now the sample is bounded and a schema whose
// smallest valid value is larger gets a 400 naming the field.
import t from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { SampleTooLarge, sampleBounds, sampleFromSchema } from '../../src/services/providers/sample-from-schema.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const nestedArrays = (levels: number, minItems: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: 'integer' };
  for (let i = 0; i < levels; i++) schema = { type: 'array', items: schema, minItems };
  return { type: 'object', properties: { a: schema }, required: ['a'] };
};

t.test('the sampler refuses before building: three levels of minItems 1000', async (t) => {
  t.throws(() => sampleFromSchema(nestedArrays(3, 1000)), SampleTooLarge);
  t.throws(
    () => sampleFromSchema({ type: 'string', minLength: 1e9 }),
    SampleTooLarge,
    'a gigabyte string is refused too',
  );
  const ok = sampleFromSchema(nestedArrays(2, 50)) as { a: number[][] };
  t.equal(ok.a.length * ok.a[0].length, 2500, 'within the bound, minItems is honoured');
  t.ok(sampleBounds.maxValues >= 2500);
});

const gw = await startInProcessGateway(testConfig({}));
t.teardown(() => gw.stop());

t.test('Chat Completions: a json_schema demanding a million values is a 400 naming it', async (t) => {
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const err = await client.chat.completions
    .create({
      model: 'echo',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'big', schema: nestedArrays(2, 1000) } },
    })
    .catch((e: unknown) => e);
  t.type(err, OpenAI.BadRequestError);
  t.equal((err as InstanceType<typeof OpenAI.BadRequestError>).param, 'json_schema');
  t.match((err as Error).message, /larger than echo generates/);
});

t.test('Messages: a forced tool whose schema demands a million values is a 400 naming the tool', async (t) => {
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
  const err = await client.messages
    .create({
      model: 'echo',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'big', input_schema: nestedArrays(2, 1000) as Anthropic.Tool.InputSchema }],
      tool_choice: { type: 'tool', name: 'big' },
      stream: true,
    })
    .catch((e: unknown) => e);
  t.type(err, Anthropic.BadRequestError, 'a stream too gets the 400 before it starts');
  t.match((err as Error).message, /tools\[0\].*larger than echo generates/);
});
