// The upstream result decoder: a Responses response object → ChatResult, finish and usage included.
import t from 'tap';
import { assertProviderKeyRejection } from '../openai-key-rejected.ts';
import { toolCall } from '../ir-messages.ts';
import { responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';
import { responsesUsage } from './wire-usage.ts';

const usage = responsesUsage({ input: 30, cached: 12, output: 20, reasoning: 8, total: 50 });
const response = (over: Record<string, unknown>) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  status: 'completed',
  error: null,
  incomplete_details: null,
  model: 'gpt-x',
  output: [],
  usage,
  ...over,
});

t.test('message, reasoning and function_call items become parts in order', async (t) => {
  const r = responsesUpstreamCodec.decodeResult(
    response({
      output: [
        {
          id: 'rs_1',
          type: 'reasoning',
          summary: [
            { type: 'summary_text', text: 'One.' },
            { type: 'summary_text', text: 'Two.' },
          ],
          encrypted_content: 'ENC',
        },
        { id: 'ws_1', type: 'web_search_call', status: 'completed' },
        {
          id: 'msg_1',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [
            {
              type: 'output_text',
              text: 'See A.',
              annotations: [{ type: 'url_citation', url: 'https://a', title: 'A', start_index: 4, end_index: 5 }],
            },
            { type: 'refusal', refusal: 'Not B.' },
          ],
        },
        {
          id: 'fc_1',
          type: 'function_call',
          status: 'completed',
          call_id: 'call_1',
          name: 'get',
          arguments: '{"x":  1}',
        },
      ],
    }),
  );
  t.same(r, {
    id: 'resp_1',
    model: 'gpt-x',
    parts: [
      { type: 'reasoning', text: 'One.\n\nTwo.', origin: 'openai-responses', signature: 'rs_1', encrypted: 'ENC' },
      { type: 'text', text: 'See A.', citations: [{ kind: 'url', url: 'https://a', title: 'A', start: 4, end: 5 }] },
      { type: 'refusal', text: 'Not B.' },
      toolCall('call_1', 'get', '{"x":  1}'),
    ],
    finish: { reason: 'tool-calls', raw: 'completed' },
    usage: { inputTokens: 30, outputTokens: 20, cacheReadTokens: 12, reasoningTokens: 8 },
  });
});

t.test('status incomplete: max_output_tokens → length, content_filter → content-filter', async (t) => {
  const len = responsesUpstreamCodec.decodeResult(
    response({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }),
  );
  t.same(len.finish, { reason: 'length', raw: 'max_output_tokens' });
  const cf = responsesUpstreamCodec.decodeResult(
    response({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }),
  );
  t.same(cf.finish, { reason: 'content-filter', raw: 'content_filter' });
  t.same(responsesUpstreamCodec.decodeResult(response({})).finish, { reason: 'stop', raw: 'completed' });
});

t.test('a failed response or a non-object is an error', async (t) => {
  t.throws(
    () =>
      responsesUpstreamCodec.decodeResult(
        response({ status: 'failed', error: { code: 'server_error', message: 'boom' } }),
      ),
    { message: /boom/ },
  );
  t.throws(() => responsesUpstreamCodec.decodeResult('nope'), { name: 'Error', message: /not a response object/ });
});

t.test('decodeError: status → kind, retry-after, credentials never echoed', async (t) => {
  const body = { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
  const rl = responsesUpstreamCodec.decodeError(429, body, { 'retry-after': '12' });
  t.equal(rl.kind, 'rate-limit');
  t.equal(rl.status, 429);
  t.equal(rl.retryAfter, 12);
  t.match(rl.message, /^openai-responses upstream error: Rate limit reached/);
  const bad = responsesUpstreamCodec.decodeError(
    400,
    { error: { message: 'Invalid value', type: 'invalid_request_error', param: 'input[0]', code: null } },
    {},
  );
  t.equal(bad.kind, 'invalid-request');
  t.equal(bad.param, 'input[0]');
  const ms = responsesUpstreamCodec.decodeError(503, 'overloaded', { 'retry-after-ms': '1500' });
  t.equal(ms.kind, 'overloaded');
  t.equal(ms.retryAfter, 2);
  assertProviderKeyRejection(t, responsesUpstreamCodec, 'Incorrect API key provided: sk-abc123', 'sk-abc');
  t.equal(responsesUpstreamCodec.decodeError(500, {}, {}).kind, 'internal');
});

t.test('a namespaced function call from the upstream gets the flat IR name its tool has', async (t) => {
  const call = {
    type: 'function_call',
    id: 'fc_1',
    call_id: 'c1',
    name: 'search',
    namespace: 'mcp__docs',
    arguments: '{}',
    status: 'completed',
  };
  const r = responsesUpstreamCodec.decodeResult(response({ output: [call] }));
  t.match(r.parts[0], { type: 'tool-call', id: 'c1', name: 'mcp__docs__search' });
  const dec = responsesUpstreamCodec.createStreamDecoder();
  const events = [
    dec.push({
      event: 'response.created',
      data: JSON.stringify({ type: 'response.created', response: response({ status: 'in_progress' }) }),
    }),
    dec.push({
      event: 'response.output_item.added',
      data: JSON.stringify({
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...call, arguments: '', status: 'in_progress' },
      }),
    }),
  ].flat();
  t.match(
    events.find((e) => e.type === 'tool-input-start'),
    { name: 'mcp__docs__search' },
  );
});
