// The upstream request encoder: IR → a Responses request body, with output-changing fields it
// cannot carry rejected (400 naming field and provider) and pure tuning knobs dropped with a warning.
import t, { type Test } from 'tap';
import { assistant, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { responsesClientCodec, responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const req = (over: Partial<ChatRequest> = {}): ChatRequest => chatRequest({ model: 'client-model', ...over });

function encode(r: ChatRequest): { body: Record<string, unknown>; warnings: string[]; path: string } {
  const warnings: string[] = [];
  const out = responsesUpstreamCodec.encodeRequest(r, 'gpt-up', (f, m) => warnings.push(`${f}: ${m}`));
  t.same(out.headers, {});
  return { body: out.body as Record<string, unknown>, warnings, path: out.path };
}

function rejects(t: Test, r: ChatRequest, param: string, msg: RegExp): void {
  try {
    encode(r);
    t.fail('expected a 400');
  } catch (e) {
    t.ok(e instanceof GatewayError && e.kind === 'invalid-request' && e.param === param, `400 naming ${param}`);
    if (e instanceof GatewayError) t.match(e.message, msg);
  }
}

t.test('the minimal request: model, input, store false, stream', async (t) => {
  const { body, path, warnings } = encode(req());
  t.equal(path, '/responses');
  t.same(body, {
    model: 'gpt-up',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    store: false,
    stream: false,
  });
  t.same(warnings, []);
});

t.test('system → instructions; every kind of message part → its input item', async (t) => {
  const { body } = encode(
    req({
      system: [
        { type: 'text', text: 'A.' },
        { type: 'text', text: 'B.' },
      ],
      messages: [
        user(
          text('see'),
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA' } },
          { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'high' },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JV' }, filename: 'a.pdf' },
          { type: 'file', source: { kind: 'file-id', fileId: 'file-1' } },
        ),
        assistant(
          { type: 'reasoning', text: 'sum', encrypted: 'ENC', origin: 'openai-responses', signature: 'rs_1' },
          text('Calling.'),
          toolCall('call_1', 'get', '{"a" : 1}'),
        ),
        user(toolResult('call_1', ['r1', 'r2']), text('and?')),
      ],
    }),
  );
  t.equal(body.instructions, 'A.\n\nB.');
  t.same(body.input, [
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'see' },
        { type: 'input_image', image_url: 'data:image/png;base64,AAA', detail: 'auto' },
        { type: 'input_image', image_url: 'https://x/y.png', detail: 'high' },
        { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JV' },
        { type: 'input_file', file_id: 'file-1' },
      ],
    },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'sum' }], encrypted_content: 'ENC' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
    { type: 'function_call', call_id: 'call_1', name: 'get', arguments: '{"a" : 1}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'r1\nr2' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and?' }] },
  ]);
  t.same(
    body.include,
    ['reasoning.encrypted_content'],
    'replayed encrypted reasoning asks for encrypted reasoning back',
  );
});

t.test('reasoning from another provider is dropped with a warning', async (t) => {
  const { body, warnings } = encode(
    req({
      messages: [
        userText('q'),
        assistant({ type: 'reasoning', text: 'hmm', signature: 'sig', origin: 'anthropic-messages' }, text('a')),
      ],
    }),
  );
  t.same(
    (body.input as Array<{ type: string }>).map((i) => i.type),
    ['message', 'message'],
  );
  t.equal(warnings.length, 1);
  t.match(warnings[0], /^messages: 1 reasoning part/);
});

t.test('tools, tool choice, parallel calls, output format', async (t) => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  const { body } = encode(
    req({
      tools: [
        { type: 'function', name: 'f', description: 'd', parameters: schema },
        { type: 'function', name: 'g', parameters: schema, strict: true },
        {
          type: 'builtin',
          kind: 'web-search',
          name: 'web_search',
          options: { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
        },
        {
          type: 'builtin',
          kind: 'file-search',
          name: 'file_search',
          options: { type: 'file_search', vector_store_ids: ['vs'] },
        },
      ],
      toolChoice: { type: 'tool', name: 'g' },
      parallelToolCalls: false,
      output: { type: 'json-schema', name: 'my schema!', schema, strict: true },
    }),
  );
  t.same(body.tools, [
    { type: 'function', name: 'f', parameters: schema, strict: false, description: 'd' },
    { type: 'function', name: 'g', parameters: schema, strict: true },
    { type: 'web_search_preview' },
    { type: 'file_search', vector_store_ids: ['vs'] },
  ]);
  t.same(body.tool_choice, { type: 'function', name: 'g' });
  t.equal(body.parallel_tool_calls, false);
  t.same(body.text, { format: { type: 'json_schema', name: 'my_schema_', schema, strict: true } });
  t.same(
    encode(
      req({
        tools: [
          {
            type: 'builtin',
            kind: 'file-search',
            name: 'file_search',
            options: { type: 'file_search', vector_store_ids: ['vs'] },
          },
        ],
        toolChoice: { type: 'tool', name: 'file_search' },
      }),
    ).body.tool_choice,
    { type: 'file_search' },
  );
  // A client's function named like a hosted tool's kind is the one its choice names.
  t.same(
    encode(
      req({
        tools: [
          { type: 'builtin', kind: 'web-search', name: 'web_search', options: { type: 'web_search_preview' } },
          { type: 'function', name: 'web-search', parameters: schema },
        ],
        toolChoice: { type: 'tool', name: 'web-search' },
      }),
    ).body.tool_choice,
    { type: 'function', name: 'web-search' },
  );
  t.same(encode(req({ toolChoice: { type: 'allowed', names: ['a'], mode: 'auto' } })).body.tool_choice, {
    type: 'allowed_tools',
    mode: 'auto',
    tools: [{ type: 'function', name: 'a' }],
  });
  rejects(
    t,
    req({ tools: [{ type: 'builtin', kind: 'bash', name: 'bash', options: { type: 'bash_20250124' } }] }),
    'tools[0]',
    /openai-responses/,
  );
  rejects(t, req({ tools: [{ type: 'builtin', kind: 'file-search', options: {} }] }), 'tools[0]', /vector_store_ids/);
  t.same(
    encode(
      req({
        tools: [
          {
            type: 'builtin',
            kind: 'code-execution',
            name: 'code_execution',
            options: { type: 'code_execution_20250522' },
          },
        ],
      }),
    ).body.tools,
    [{ type: 'code_interpreter', container: { type: 'auto' } }],
  );
  rejects(
    t,
    req({
      tools: [
        {
          type: 'builtin',
          kind: 'computer-use',
          name: 'computer',
          options: { type: 'computer_20241022', display_width_px: 1 },
        },
      ],
    }),
    'tools[0]',
    /openai-responses/,
  );
});

t.test('json mode gets the word JSON into the instructions when the input lacks it', async (t) => {
  t.equal(encode(req({ output: { type: 'json' } })).body.instructions, 'Respond with a JSON object.');
  t.equal(
    encode(req({ output: { type: 'json' }, system: [{ type: 'text', text: 'Answer in json.' }] })).body.instructions,
    'Answer in json.',
  );
  t.same(encode(req({ output: { type: 'json' } })).body.text, { format: { type: 'json_object' } });
});

t.test('sampling: temperature/top_p carried, tuning knobs warned, stop rejected', async (t) => {
  const { body, warnings } = encode(
    req({
      maxTokens: 100,
      sampling: { temperature: 0.3, topP: 0.8, topK: 5, seed: 1, presencePenalty: 0.1, frequencyPenalty: 0.2 },
    }),
  );
  t.equal(body.max_output_tokens, 100);
  t.equal(body.temperature, 0.3);
  t.equal(body.top_p, 0.8);
  for (const k of ['top_k', 'seed', 'presence_penalty', 'frequency_penalty']) t.notOk(k in body, `${k} not sent`);
  t.same(
    warnings.map((w) => w.split(':')[0]),
    ['top_k', 'seed', 'presence_penalty', 'frequency_penalty'],
  );
  rejects(t, req({ sampling: { stop: ['END'] } }), 'stop', /openai-responses/);
  rejects(t, req({ sampling: { candidateCount: 2 } }), 'candidateCount', /single candidate/);
});

t.test('reasoning: effort from the effort or the budget, summary auto when thoughts are wanted', async (t) => {
  t.same(encode(req({ reasoning: { enabled: true, effort: 'high' } })).body.reasoning, { effort: 'high' });
  const b = encode(req({ reasoning: { enabled: true, budgetTokens: 10000, includeThoughts: true } })).body;
  t.same(b.reasoning, { effort: 'medium', summary: 'auto' });
  t.same(b.include, ['reasoning.encrypted_content']);
  t.notOk('reasoning' in encode(req({ reasoning: { enabled: false } })).body);
  t.same(encode(req({ reasoning: { enabled: false, effort: 'none' } })).body.reasoning, { effort: 'none' });
});

t.test('a Responses client request round-trips through the upstream encoder', async (t) => {
  const ir = responsesClientCodec.decodeRequest(
    {
      model: 'client',
      input: [{ role: 'user', content: 'q' }],
      instructions: 'Sys.',
      user: 'u',
      metadata: { a: 'b' },
      include: ['file_search_call.results'],
      truncation: 'auto',
      service_tier: 'flex',
      prompt_cache_key: 'k',
      text: { verbosity: 'low' },
      reasoning: { effort: 'xhigh' },
      stream: true,
    },
    { headers: {}, params: {}, query: {} },
  );
  const { body, warnings } = encode(ir);
  t.same(body, {
    model: 'gpt-up',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] }],
    instructions: 'Sys.',
    text: { verbosity: 'low' },
    reasoning: { effort: 'xhigh' },
    user: 'u',
    metadata: { a: 'b' },
    truncation: 'auto',
    service_tier: 'flex',
    prompt_cache_key: 'k',
    include: ['file_search_call.results', 'reasoning.encrypted_content'],
    store: false,
    stream: true,
  });
  t.same(warnings, []);
});

t.test('unresolved stored state and unknown extensions are never sent silently', async (t) => {
  rejects(
    t,
    req({ extensions: { 'openai-responses': { previous_response_id: 'resp_1' } } }),
    'previous_response_id',
    /could not be resolved/,
  );
  rejects(t, req({ extensions: { 'openai-responses': { item_references: ['msg_1'] } } }), 'input', /item_reference/);
  rejects(t, req({ extensions: { 'openai-responses': { background: true } } }), 'background', /not supported/);
  const { warnings } = encode(
    req({
      extensions: {
        'anthropic-messages': { 'anthropic-beta': 'x', container: 'c' },
        'openai-responses': { store: true, future_knob: 1 },
      },
    }),
  );
  t.same(warnings, [
    'anthropic-beta: an option only anthropic-messages has: the openai-responses upstream has no field for it; dropped',
    'container: an option only anthropic-messages has: the openai-responses upstream has no field for it; dropped',
    'future_knob: not supported by the openai-responses upstream; dropped',
  ]);
});

t.test('same-format relay: /responses with only the model renamed', async (t) => {
  const { responsesRelay } = await import('../../../adapters/openai-responses/responses-relay.ts');
  const body = { model: 'client', input: 'x', store: false, unknown_future_field: 1 };
  t.same(responsesRelay(body, 'gpt-up', false), {
    path: '/responses',
    body: { model: 'gpt-up', input: 'x', store: false, unknown_future_field: 1 },
  });
  t.equal(body.model, 'client', 'the client body is not mutated');
});

t.test('a failed tool result is marked for the model; cache hints are reported, not silently dropped', async (t) => {
  const { body, warnings } = encode(
    req({
      system: [{ type: 'text', text: 'sys', cache: { type: 'ephemeral' } }],
      messages: [
        userText('go'),
        assistant(toolCall('call_1', 'f', '{}')),
        user(toolResult('call_1', 'disk full', { isError: true })),
      ],
    }),
  );
  t.match(
    (body.input as Array<Record<string, unknown>>).find((i) => i.type === 'function_call_output'),
    { call_id: 'call_1', output: 'Error: disk full' },
  );
  t.match(warnings, [/^cache_control: /]);
});
