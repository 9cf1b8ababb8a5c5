// The official `openai` SDK pointed straight at the emulator must parse everything it sends
// (including the strict event accounting of responses.stream()): that is what makes the emulator
// an honest stand-in for the real Responses API.
import t from 'tap';
import OpenAI from 'openai';
import { startOpenAIResponsesUpstream } from './openai-responses-upstream.ts';
import { textResponseEventTypes } from '../helpers/responses-events.ts';
import { assertOpenAIPost, emulatorForFile, scriptWeatherCall } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startOpenAIResponsesUpstream);
const client = new OpenAI({ apiKey: 'sk-emulator-test', baseURL: emu.url, maxRetries: 0 });

t.test('responses.create answers with the scripted text, echoes the request and records it', async (t) => {
  emu.script({ kind: 'text', text: 'Hello there.' });
  const res = await client.responses.create({
    model: 'gpt-test',
    instructions: 'be terse',
    input: 'hi',
    temperature: 0.5,
    metadata: { k: 'v' },
  });
  t.equal(res.object, 'response');
  t.match(res.id, /^resp_[0-9a-f]{48}$/);
  t.equal(res.status, 'completed');
  t.equal(res.output_text, 'Hello there.');
  t.equal(res.model, 'gpt-test');
  t.equal(res.instructions, 'be terse');
  t.equal(res.temperature, 0.5);
  t.equal(res.top_p, 1);
  t.same(res.metadata, { k: 'v' });
  t.same(res.text, { format: { type: 'text' } });
  t.ok(res.usage && res.usage.input_tokens > 0 && res.usage.output_tokens > 0);
  t.equal(res.usage?.total_tokens, (res.usage?.input_tokens ?? 0) + (res.usage?.output_tokens ?? 0));
  const got = emu.requests[0];
  assertOpenAIPost(t, got, '/v1/responses', 'sk-emulator-test', {
    model: 'gpt-test',
    instructions: 'be terse',
    input: 'hi',
    temperature: 0.5,
    metadata: { k: 'v' },
  });
});

t.test('with nothing scripted it echoes the last user input text', async (t) => {
  const res = await client.responses.create({
    model: 'gpt-test',
    input: [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'ok' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'repeat me' }] },
    ],
  });
  t.equal(res.output_text, 'repeat me');
});

t.test('responses.stream: the event sequence with sequence numbers, and finalResponse()', async (t) => {
  emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
  const stream = client.responses.stream({ model: 'gpt-test', input: 'count' });
  const types: string[] = [];
  const seqs: number[] = [];
  const deltas: string[] = [];
  for await (const ev of stream) {
    types.push(ev.type);
    seqs.push(ev.sequence_number);
    if (ev.type === 'response.output_text.delta') deltas.push(ev.delta);
  }
  const final = await stream.finalResponse();
  t.same(types, textResponseEventTypes(3), 'one text message in three deltas');
  t.same(
    seqs,
    types.map((_, i) => i),
    'sequence_number counts from 0',
  );
  t.same(deltas, ['one ', 'two ', 'three']);
  t.equal(final.status, 'completed');
  t.equal(final.output_text, 'one two three');
  t.equal((emu.requests[0].body as { stream?: boolean }).stream, true);
});

t.test('a streamed function call: arguments arrive in the scripted pieces and add up exactly', async (t) => {
  const args = '{"city":"Paris","units":"celsius"}';
  scriptWeatherCall(emu, 'call_abc', args, ['{"city":"Pa', 'ris","units"', ':"celsius"}']);
  const stream = client.responses.stream({
    model: 'gpt-test',
    input: 'weather?',
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: false,
      },
    ],
  });
  const pieces: string[] = [];
  let done: string | undefined;
  for await (const ev of stream) {
    if (ev.type === 'response.function_call_arguments.delta') pieces.push(ev.delta);
    if (ev.type === 'response.function_call_arguments.done') done = ev.arguments;
  }
  const final = await stream.finalResponse();
  t.same(pieces, ['{"city":"Pa', 'ris","units"', ':"celsius"}']);
  t.equal(pieces.join(''), args);
  t.equal(done, args);
  const call = final.output.find((o) => o.type === 'function_call');
  t.ok(call && call.type === 'function_call');
  if (call?.type === 'function_call') {
    t.equal(call.arguments, args);
    t.equal(call.call_id, 'call_abc');
    t.equal(call.name, 'get_weather');
    t.match(call.id, /^fc_/);
  }
});

t.test('reasoning: summary events while streaming, encrypted_content when included', async (t) => {
  emu.script({ kind: 'thinking', thinking: 'Think it through.', signature: 'gAAAA-encrypted', text: 'Answer.' });
  const stream = client.responses.stream({
    model: 'o-test',
    input: 'why?',
    reasoning: { effort: 'low', summary: 'auto' },
    include: ['reasoning.encrypted_content'],
    store: false,
  });
  const summary: string[] = [];
  const types = new Set<string>();
  for await (const ev of stream) {
    types.add(ev.type);
    if (ev.type === 'response.reasoning_summary_text.delta') summary.push(ev.delta);
  }
  const final = await stream.finalResponse();
  for (const ty of [
    'response.reasoning_summary_part.added',
    'response.reasoning_summary_text.done',
    'response.reasoning_summary_part.done',
  ])
    t.ok(types.has(ty), ty);
  t.equal(summary.join(''), 'Think it through.');
  const rs = final.output[0];
  t.equal(rs.type, 'reasoning');
  if (rs.type === 'reasoning') {
    t.match(rs.id, /^rs_/);
    t.same(rs.summary, [{ type: 'summary_text', text: 'Think it through.' }]);
    t.equal(rs.encrypted_content, 'gAAAA-encrypted');
  }
  t.equal(final.output_text, 'Answer.');
  t.same(final.reasoning, { effort: 'low', summary: 'auto' });

  emu.script({ kind: 'thinking', thinking: 'Quietly.', signature: 'sig', text: 'Done.' });
  const plain = await client.responses.create({ model: 'o-test', input: 'why?', reasoning: { effort: 'low' } });
  const item = plain.output[0];
  t.ok(item.type === 'reasoning' && item.encrypted_content === undefined, 'no encrypted_content unless included');
});

t.test('429 is a RateLimitError with retry-after, 500 an InternalServerError', async (t) => {
  emu.script({ kind: 'error', status: 429, retryAfter: 7 });
  const rl = await client.responses.create({ model: 'gpt-test', input: 'x' }).catch((e: unknown) => e);
  t.ok(rl instanceof OpenAI.RateLimitError, 'RateLimitError');
  if (rl instanceof OpenAI.RateLimitError) {
    t.equal(rl.status, 429);
    t.equal(rl.code, 'rate_limit_exceeded');
    t.equal(rl.headers.get('retry-after'), '7');
  }
  emu.script({ kind: 'error', status: 500 });
  const ise = await client.responses.create({ model: 'gpt-test', input: 'x' }).catch((e: unknown) => e);
  t.ok(ise instanceof OpenAI.InternalServerError, 'InternalServerError');
  if (ise instanceof OpenAI.InternalServerError) t.match(ise.message, /server had an error/);
});

t.test('cut: the stream breaks after the first delta and the SDK reports it', async (t) => {
  emu.script({ kind: 'cut', text: 'partial answer here' });
  const stream = client.responses.stream({ model: 'gpt-test', input: 'x' });
  const deltas: string[] = [];
  const err = await (async () => {
    for await (const ev of stream) if (ev.type === 'response.output_text.delta') deltas.push(ev.delta);
  })().catch((e: unknown) => e);
  t.same(deltas, ['partial ']);
  t.ok(err instanceof Error, 'the consumer sees an error, not a clean end');
});
