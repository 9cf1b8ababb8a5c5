// The upstream stream decoder: wire events → IR events. Split function arguments are rebuilt
// exactly, reasoning summary events become reasoning deltas, the ends are handled.
import t from 'tap';
import { finishEvent, reasoningPart, textPart } from '../stream-events.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';

function decode(events: Array<Record<string, unknown>>, end = true): StreamEvent[] {
  const d = responsesUpstreamCodec.createStreamDecoder();
  const out: StreamEvent[] = [];
  events.forEach((e, i) =>
    out.push(...d.push({ event: String(e.type), data: JSON.stringify({ ...e, sequence_number: i }) })),
  );
  if (end) out.push(...d.end());
  return out;
}

const created = {
  type: 'response.created',
  response: { id: 'resp_9', model: 'gpt-x', status: 'in_progress', output: [], usage: null },
};
const completed = (over: Record<string, unknown> = {}) => ({
  type: 'response.completed',
  response: {
    id: 'resp_9',
    status: 'completed',
    incomplete_details: null,
    usage: {
      input_tokens: 5,
      output_tokens: 7,
      input_tokens_details: { cached_tokens: 1 },
      output_tokens_details: { reasoning_tokens: 2 },
    },
    ...over,
  },
});

t.test('function call arguments split at odd places come back byte-exact', async (t) => {
  const args = '{"q":"naïve \\"quotes\\"","n":[1, 2]}';
  const pieces = [args.slice(0, 1), args.slice(1, 5), args.slice(5, 9), args.slice(9, 20), args.slice(20)];
  t.equal(pieces.join(''), args);
  const evs = decode([
    created,
    { type: 'response.in_progress', response: {} },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: {
        id: 'fc_1',
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_1',
        name: 'search',
      },
    },
    ...pieces.map((delta) => ({
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 0,
      delta,
    })),
    {
      type: 'response.function_call_arguments.done',
      item_id: 'fc_1',
      output_index: 0,
      name: 'search',
      arguments: args,
    },
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: {
        id: 'fc_1',
        type: 'function_call',
        status: 'completed',
        arguments: args,
        call_id: 'call_1',
        name: 'search',
      },
    },
    completed(),
  ]);
  t.same(evs[0], { type: 'start', id: 'resp_9', model: 'gpt-x' });
  t.same(evs[1], { type: 'tool-input-start', index: 0, id: 'call_1', name: 'search' });
  const json = evs
    .filter((e) => e.type === 'tool-input-delta')
    .map((e) => (e.type === 'tool-input-delta' ? e.json : ''));
  t.same(json, pieces);
  t.equal(json.join(''), args);
  t.same(evs.slice(-2), [
    { type: 'tool-input-end', index: 0 },
    {
      type: 'finish',
      finish: { reason: 'tool-calls', raw: 'completed' },
      usage: { inputTokens: 5, outputTokens: 7, cacheReadTokens: 1, reasoningTokens: 2 },
    },
  ]);
});

t.test('reasoning summary events, then text: two IR parts in order', async (t) => {
  const at = { item_id: 'rs_1', output_index: 0 };
  const m = { item_id: 'msg_1', output_index: 1, content_index: 0 };
  const evs = decode([
    created,
    { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
    {
      type: 'response.reasoning_summary_part.added',
      ...at,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    },
    { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta: 'First ' },
    { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta: 'idea.' },
    { type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text: 'First idea.' },
    {
      type: 'response.reasoning_summary_part.done',
      ...at,
      summary_index: 0,
      part: { type: 'summary_text', text: 'First idea.' },
    },
    {
      type: 'response.reasoning_summary_part.added',
      ...at,
      summary_index: 1,
      part: { type: 'summary_text', text: '' },
    },
    { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 1, delta: 'Second.' },
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'ENC' },
    },
    {
      type: 'response.output_item.added',
      output_index: 1,
      item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    },
    { type: 'response.content_part.added', ...m, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', ...m, delta: 'Hi' },
    { type: 'response.output_text.delta', ...m, delta: '!' },
    { type: 'response.output_text.done', ...m, text: 'Hi!' },
    { type: 'response.content_part.done', ...m, part: { type: 'output_text', text: 'Hi!', annotations: [] } },
    { type: 'response.output_item.done', output_index: 1, item: { id: 'msg_1', type: 'message' } },
    completed(),
  ]);
  t.same(evs, [
    { type: 'start', id: 'resp_9', model: 'gpt-x' },
    ...reasoningPart(0, 'openai-responses', {
      signature: 'rs_1',
      signedFirst: true,
      deltas: ['First ', 'idea.', '\n\n', 'Second.'],
      encrypted: 'ENC',
    }),
    ...textPart(1, 'Hi', '!'),
    finishEvent('stop', 'completed', { inputTokens: 5, outputTokens: 7, cacheReadTokens: 1, reasoningTokens: 2 }),
  ]);
});

t.test('response.incomplete ends with a length finish; hosted-tool events are ignored', async (t) => {
  const evs = decode([
    created,
    { type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws_1' },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'cut' },
    {
      type: 'response.incomplete',
      response: {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        usage: { input_tokens: 1, output_tokens: 2 },
      },
    },
  ]);
  t.same(
    evs.map((e) => e.type),
    ['start', 'text-start', 'text-delta', 'text-end', 'finish'],
  );
  const fin = evs[evs.length - 1];
  t.ok(fin.type === 'finish' && fin.finish.reason === 'length' && fin.finish.raw === 'max_output_tokens');
});

t.test('error event → one IR error; the response.failed after it adds nothing', async (t) => {
  const evs = decode([
    created,
    { type: 'error', code: 'rate_limit_exceeded', message: 'Too many', param: null },
    {
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Too many' } },
    },
  ]);
  t.equal(evs.length, 2);
  const e = evs[1];
  t.ok(e.type === 'error' && e.error.kind === 'rate-limit' && /Too many/.test(e.error.message));
  const failed = decode([
    created,
    { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'Broke' } } },
  ]);
  t.ok(failed[1].type === 'error' && failed[1].error.kind === 'upstream' && /Broke/.test(failed[1].error.message));
});

t.test('end() without a terminal event is an error: the stream ended early', async (t) => {
  const evs = decode([
    created,
    { type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: 'par' },
  ]);
  const last = evs[evs.length - 1];
  t.ok(last.type === 'error' && /ended before response.completed/.test(last.error.message));
  const d = responsesUpstreamCodec.createStreamDecoder();
  t.same(d.push({ event: 'response.created', data: 'not json' })[0]?.type, 'error');
  t.same(d.end(), [], 'only one error');
});
