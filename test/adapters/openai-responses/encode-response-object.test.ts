// The client encoder's response object: every field of the spec's table, request fields echoed
// with the API's defaults, output items in order, status from the finish.
import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import { createResponsesClientCodec, sequentialIds } from '../../../adapters/openai-responses/index.ts';
import { responsesUsage } from './wire-usage.ts';

const ctx = { headers: {}, params: {}, query: {} };
const codec = () => createResponsesClientCodec(sequentialIds(1_700_000_000));
const result = (over: Partial<ChatResult> = {}): ChatResult => ({
  id: 'chatcmpl-x',
  model: 'upstream-model',
  parts: [{ type: 'text', text: 'Hello.' }],
  finish: { reason: 'stop', raw: 'stop' },
  usage: { inputTokens: 10, outputTokens: 5 },
  ...over,
});

t.test('a minimal request echoes every default of the response object', async (t) => {
  const c = codec();
  const req = c.decodeRequest({ model: 'my-model', input: 'hi' }, ctx);
  const body = c.encodeResult(result(), req);
  t.same(body, {
    id: 'resp_0001',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: 'my-model',
    output: [
      {
        id: 'msg_0002',
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello.' }],
        role: 'assistant',
      },
    ],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: responsesUsage({ input: 10, cached: 0, output: 5, reasoning: 0, total: 15 }),
    user: null,
    metadata: {},
  });
  t.notOk('output_text' in (body as object), 'output_text is left to the SDKs');
  t.notOk('service_tier' in (body as object), 'service_tier only when the request set it');
});

t.test('request fields are echoed as sent, tools with their defaults filled in', async (t) => {
  const c = codec();
  const schema = { type: 'object', properties: {} };
  const req = c.decodeRequest(
    {
      model: 'm',
      input: 'x',
      instructions: 'Be brief.',
      max_output_tokens: 256,
      parallel_tool_calls: false,
      previous_response_id: 'resp_prev',
      reasoning: { effort: 'medium', generate_summary: 'concise' },
      service_tier: 'flex',
      store: false,
      temperature: 0.2,
      top_p: 0.9,
      truncation: 'auto',
      user: 'u1',
      metadata: { a: 'b' },
      text: { format: { type: 'json_schema', name: 'out', schema } },
      tools: [
        { type: 'function', name: 'f', parameters: schema },
        { type: 'file_search', vector_store_ids: ['vs_1'] },
        { type: 'web_search_preview' },
        { type: 'computer_use_preview', display_width: 800, display_height: 600, environment: 'linux' },
      ],
      tool_choice: { type: 'function', name: 'f' },
    },
    ctx,
  );
  const body = c.encodeResult(result(), req) as Record<string, unknown>;
  t.equal(body.instructions, 'Be brief.');
  t.equal(body.max_output_tokens, 256);
  t.equal(body.parallel_tool_calls, false);
  t.equal(body.previous_response_id, 'resp_prev');
  t.same(body.reasoning, { effort: 'medium', summary: 'concise' });
  t.equal(body.service_tier, 'flex');
  t.equal(body.store, false);
  t.equal(body.temperature, 0.2);
  t.equal(body.top_p, 0.9);
  t.equal(body.truncation, 'auto');
  t.equal(body.user, 'u1');
  t.same(body.metadata, { a: 'b' });
  t.same(body.text, { format: { type: 'json_schema', name: 'out', schema, strict: false } });
  t.same(body.tool_choice, { type: 'function', name: 'f' });
  t.same(body.tools, [
    { type: 'function', description: null, name: 'f', parameters: schema, strict: true },
    {
      filters: null,
      max_num_results: 20,
      type: 'file_search',
      vector_store_ids: ['vs_1'],
      ranking_options: { ranker: 'auto', score_threshold: 0 },
    },
    { search_context_size: 'medium', type: 'web_search_preview', user_location: null },
    { type: 'computer_use_preview', display_width: 800, display_height: 600, environment: 'linux' },
  ]);
  const auto = c.decodeRequest(
    {
      model: 'm',
      input: 'x',
      service_tier: 'auto',
      tools: [{ type: 'file_search', vector_store_ids: ['v'] }],
      tool_choice: { type: 'file_search' },
    },
    ctx,
  );
  const b2 = c.encodeResult(result(), auto) as Record<string, unknown>;
  t.equal(b2.service_tier, 'default', "'auto' reports the tier used");
  t.same(b2.tool_choice, { type: 'file_search' });
});

t.test('output items in order: reasoning, message with annotations and refusal, function calls', async (t) => {
  const c = codec();
  const req = c.decodeRequest({ model: 'm', input: 'x', include: ['reasoning.encrypted_content'] }, ctx);
  const body = c.encodeResult(
    result({
      parts: [
        {
          type: 'reasoning',
          text: 'Thinking.',
          encrypted: 'ENC',
          origin: 'openai-responses',
          signature: 'rs_upstream1',
        },
        { type: 'text', text: 'Part one. ', citations: [{ kind: 'url', url: 'https://a.example', title: 'A' }] },
        {
          type: 'text',
          text: 'Part two.',
          citations: [{ kind: 'url', url: 'https://b.example', title: 'B', start: 0, end: 4 }],
        },
        { type: 'refusal', text: 'Not that.' },
        toolCall('call_1', 'get', '{"a": 1}'),
      ],
      finish: { reason: 'tool-calls', raw: 'tool_use' },
      usage: { inputTokens: 20, outputTokens: 9, reasoningTokens: 4, cacheReadTokens: 8 },
    }),
    req,
  ) as { output: unknown[]; usage: unknown; status: string };
  t.equal(body.status, 'completed');
  t.same(body.output, [
    {
      id: 'rs_upstream1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Thinking.' }],
      encrypted_content: 'ENC',
    },
    {
      id: 'msg_0002',
      type: 'message',
      status: 'completed',
      content: [
        {
          type: 'output_text',
          annotations: [
            { type: 'url_citation', start_index: 0, end_index: 10, title: 'A', url: 'https://a.example' },
            { type: 'url_citation', start_index: 10, end_index: 14, title: 'B', url: 'https://b.example' },
          ],
          logprobs: [],
          text: 'Part one. Part two.',
        },
        { type: 'refusal', refusal: 'Not that.' },
      ],
      role: 'assistant',
    },
    {
      id: 'fc_0003',
      type: 'function_call',
      status: 'completed',
      arguments: '{"a": 1}',
      call_id: 'call_1',
      name: 'get',
    },
  ]);
  t.same(body.usage, responsesUsage({ input: 20, cached: 8, output: 9, reasoning: 4, total: 29 }));
});

t.test('encrypted_content only when include asks for it; other providers get a fresh rs_ id', async (t) => {
  const c = codec();
  const req = c.decodeRequest({ model: 'm', input: 'x' }, ctx);
  const body = c.encodeResult(
    result({
      parts: [
        { type: 'reasoning', text: 'T', encrypted: 'ENC', origin: 'openai-responses', signature: 'rs_up' },
        { type: 'reasoning', text: '', signature: 'anthropic-sig', origin: 'anthropic-messages' },
      ],
    }),
    req,
  ) as { output: unknown[] };
  t.same(body.output, [
    { id: 'rs_up', type: 'reasoning', summary: [{ type: 'summary_text', text: 'T' }] },
    { id: 'rs_0002', type: 'reasoning', summary: [] },
  ]);
});

t.test('finish length → incomplete/max_output_tokens; content-filter → incomplete/content_filter', async (t) => {
  const c = codec();
  const req = c.decodeRequest({ model: 'm', input: 'x' }, ctx);
  const len = c.encodeResult(result({ finish: { reason: 'length', raw: 'max_tokens' } }), req) as Record<
    string,
    unknown
  >;
  t.equal(len.status, 'incomplete');
  t.same(len.incomplete_details, { reason: 'max_output_tokens' });
  const cf = c.encodeResult(result({ finish: { reason: 'content-filter', raw: 'SAFETY' } }), req) as Record<
    string,
    unknown
  >;
  t.equal(cf.status, 'incomplete');
  t.same(cf.incomplete_details, { reason: 'content_filter' });
  const up = c.encodeResult(result({ id: 'resp_fromupstream' }), req) as Record<string, unknown>;
  t.equal(up.id, 'resp_fromupstream', 'an upstream Responses id is kept');
});
