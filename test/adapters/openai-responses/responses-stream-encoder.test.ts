// The client stream encoder: the documented event sequence, sequence_number from 0, function
// call arguments and reasoning summary events, errors as an `error` event plus response.failed.
import t from 'tap';
import { finishEvent, reasoningPart, textPart, toolInputPart } from '../stream-events.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { createResponsesClientCodec, sequentialIds } from '../../../adapters/openai-responses/index.ts';
import { responsesUsage } from './wire-usage.ts';

const ctx = { headers: {}, params: {}, query: {} };
type Ev = Record<string, unknown> & { type: string; sequence_number: number };

function run(events: StreamEvent[], body: Record<string, unknown> = { model: 'm', input: 'x', stream: true }): Ev[] {
  const c = createResponsesClientCodec(sequentialIds(1_700_000_000));
  const enc = c.createStreamEncoder(c.decodeRequest(body, ctx));
  const out: Ev[] = [];
  for (const e of events) {
    for (const f of enc.push(e)) {
      const data = JSON.parse(f.data) as Ev;
      if (f.event !== data.type) throw new Error(`event line ${f.event} != data.type ${data.type}`);
      out.push(data);
    }
  }
  return out;
}

const usage = { inputTokens: 3, outputTokens: 4 };
/** A response with one message item opens with these events and closes its part and item with these. */
const opening = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
];
const closing = ['response.content_part.done', 'response.output_item.done'];

t.test('text: the full sequence with sequence numbers from 0', async (t) => {
  const evs = run([
    { type: 'start', id: 'x', model: 'up' },
    ...textPart(0, 'Hel', 'lo'),
    finishEvent('stop', 'stop', usage),
  ]);
  t.same(
    evs.map((e) => e.type),
    [
      ...opening,
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      ...closing,
      'response.completed',
    ],
  );
  t.same(
    evs.map((e) => e.sequence_number),
    evs.map((_, i) => i),
  );
  const created = evs[0].response as Record<string, unknown>;
  t.equal(created.status, 'in_progress');
  t.same(created.output, []);
  t.equal(created.usage, null);
  t.equal(created.id, 'resp_0001');
  t.same(evs[2], {
    type: 'response.output_item.added',
    output_index: 0,
    item: { id: 'msg_0002', type: 'message', status: 'in_progress', content: [], role: 'assistant' },
    sequence_number: 2,
  });
  t.same(evs[4], {
    type: 'response.output_text.delta',
    item_id: 'msg_0002',
    output_index: 0,
    content_index: 0,
    delta: 'Hel',
    logprobs: [],
    sequence_number: 4,
  });
  t.same(evs[6], {
    type: 'response.output_text.done',
    item_id: 'msg_0002',
    output_index: 0,
    content_index: 0,
    text: 'Hello',
    logprobs: [],
    sequence_number: 6,
  });
  const done = evs[9].response as Record<string, unknown>;
  t.equal(done.status, 'completed');
  t.same(done.output, [
    {
      id: 'msg_0002',
      type: 'message',
      status: 'completed',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello' }],
      role: 'assistant',
    },
  ]);
  t.same(done.usage, responsesUsage({ input: 3, cached: 0, output: 4, reasoning: 0, total: 7 }));
  t.equal(done.id, created.id);
});

t.test('reasoning then a function call: summary events and argument deltas', async (t) => {
  const evs = run(
    [
      { type: 'start', id: 'resp_up', model: 'up' },
      ...reasoningPart(0, 'openai-responses', {
        signature: 'rs_upstream',
        signedFirst: true,
        deltas: ['Let me ', 'see.'],
        encrypted: 'ENC',
      }),
      ...toolInputPart(1, 'call_9', 'get', '{"a"', ':1}'),
      finishEvent('tool-calls', 'completed', usage),
    ],
    { model: 'm', input: 'x', stream: true, include: ['reasoning.encrypted_content'] },
  );
  t.same(
    evs.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  t.equal((evs[0].response as { id: string }).id, 'resp_up', 'an upstream Responses id is kept');
  t.same(evs[2].item, { id: 'rs_upstream', type: 'reasoning', summary: [] }, 'the OpenAI item id names the item');
  t.same(evs[3], {
    type: 'response.reasoning_summary_part.added',
    item_id: 'rs_upstream',
    output_index: 0,
    summary_index: 0,
    part: { type: 'summary_text', text: '' },
    sequence_number: 3,
  });
  t.equal(evs[6].text, 'Let me see.');
  t.same(evs[8].item, {
    id: 'rs_upstream',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'Let me see.' }],
    encrypted_content: 'ENC',
  });
  t.same(evs[9].item, {
    id: 'fc_0001',
    type: 'function_call',
    status: 'in_progress',
    arguments: '',
    call_id: 'call_9',
    name: 'get',
  });
  t.same(evs[12], {
    type: 'response.function_call_arguments.done',
    item_id: 'fc_0001',
    name: 'get',
    output_index: 1,
    arguments: '{"a":1}',
    sequence_number: 12,
  });
  t.equal((evs[13].item as { status: string }).status, 'completed');
  const final = evs[14].response as { output: Array<{ type: string }> };
  t.same(
    final.output.map((o) => o.type),
    ['reasoning', 'function_call'],
  );
});

t.test('text parts around a tool call: one message item per run of text', async (t) => {
  const evs = run([
    ...textPart(0, 'A'),
    ...textPart(1, 'B'),
    ...toolInputPart(2, 'c', 'f'),
    ...textPart(3, 'C'),
    finishEvent('stop', 'end_turn', usage),
  ]);
  t.equal(evs[0].type, 'response.created', 'created is sent even without a start event');
  const final = evs[evs.length - 1].response as { output: Array<Record<string, unknown>> };
  t.same(
    final.output.map((o) => [
      o.type,
      o.type === 'message' ? (o.content as Array<{ text: string }>)[0].text : o.arguments,
    ]),
    [
      ['message', 'AB'],
      ['function_call', ''],
      ['message', 'C'],
    ],
  );
  t.same(
    evs.filter((e) => e.type === 'response.output_item.added').map((e) => e.output_index),
    [0, 1, 2],
  );
});

t.test('length → response.incomplete; refusal deltas → refusal content', async (t) => {
  const evs = run([{ type: 'refusal-delta', index: 0, text: 'I cannot' }, finishEvent('length', 'max_tokens', usage)]);
  t.same(
    evs.map((e) => e.type),
    [...opening, 'response.refusal.delta', 'response.refusal.done', ...closing, 'response.incomplete'],
  );
  const r = evs[8].response as Record<string, unknown>;
  t.equal(r.status, 'incomplete');
  t.same(r.incomplete_details, { reason: 'max_output_tokens' });
});

t.test('an IR error: an error event then response.failed, nothing after', async (t) => {
  const c = createResponsesClientCodec(sequentialIds());
  const enc = c.createStreamEncoder(c.decodeRequest({ model: 'm', input: 'x', stream: true }, ctx));
  const frames = [
    ...enc.push({ type: 'text-start', index: 0 }),
    ...enc.push({ type: 'text-delta', index: 0, text: 'par' }),
    ...enc.push({ type: 'error', error: new GatewayError('rate-limit', 'slow down') }),
  ];
  t.same(enc.push({ type: 'finish', finish: { reason: 'stop', raw: 'stop' }, usage }), [], 'the stream is over');
  const evs = frames.map((f) => JSON.parse(f.data) as Ev);
  const err = evs[evs.length - 2];
  t.same(err, {
    type: 'error',
    code: 'rate_limit_exceeded',
    message: 'slow down',
    param: null,
    sequence_number: evs.length - 2,
  });
  const failed = evs[evs.length - 1];
  t.equal(failed.type, 'response.failed');
  const r = failed.response as Record<string, unknown>;
  t.equal(r.status, 'failed');
  t.same(r.error, { code: 'rate_limit_exceeded', message: 'slow down' });
  t.same(
    (r.output as Array<{ status: string }>).map((o) => o.status),
    ['incomplete'],
  );
});
