// The client decoder: every rule of the Responses request tables and the Limits table is a 400
// naming the field as OpenAI spells it, and valid requests map onto the IR exactly.
import t, { type Test } from 'tap';
import { assistant, system, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { responsesClientCodec, responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';

const ctx = { headers: {}, params: {}, query: {} };
const decode = (body: unknown) => responsesClientCodec.decodeRequest(body, ctx);
/** A request of just these input items. */
const decodeInput = (...input: unknown[]) => decode({ model: 'm', input });
const base = { model: 'gpt-test', input: 'hi' };

function rejects(t: Test, body: unknown, param: string, msg?: RegExp): void {
  try {
    decode(body);
    t.fail(`expected a 400 naming ${param}`);
  } catch (e) {
    t.ok(e instanceof GatewayError, 'a GatewayError');
    if (e instanceof GatewayError) {
      t.equal(e.kind, 'invalid-request');
      t.equal(e.status, 400);
      t.equal(e.param, param, `param ${param}`);
      if (msg) t.match(e.message, msg);
    }
  }
}

t.test('a string input is one user text; defaults fill the rest', async (t) => {
  const r = decode(base);
  t.same(r.messages, [userText('hi')]);
  t.same(r.system, []);
  t.same(r.tools, []);
  t.equal(r.stream, false);
  t.same(r.sampling, {});
  t.equal(r.extensions['openai-responses']?.store, true, 'store defaults to true');
  t.equal(r.toolChoice, undefined);
});

t.test('required fields', async (t) => {
  rejects(t, { input: 'x' }, 'model', /Missing required parameter: 'model'/);
  rejects(t, { model: 'm' }, 'input', /Missing required parameter: 'input'/);
  rejects(t, { model: 3, input: 'x' }, 'model');
  rejects(t, 'not an object', null as unknown as string);
});

t.test('numeric limits: temperature 0–2, top_p 0–1, max_output_tokens ≥ 16, top_logprobs 0–20', async (t) => {
  rejects(t, { ...base, temperature: 2.5 }, 'temperature', /Expected a value <= 2, but got 2.5/);
  rejects(t, { ...base, temperature: -0.1 }, 'temperature');
  rejects(t, { ...base, temperature: 'hot' }, 'temperature');
  rejects(t, { ...base, top_p: 1.5 }, 'top_p');
  rejects(t, { ...base, max_output_tokens: 8 }, 'max_output_tokens', /Expected a value >= 16/);
  rejects(t, { ...base, max_output_tokens: 100.5 }, 'max_output_tokens');
  rejects(t, { ...base, top_logprobs: 21 }, 'top_logprobs');
  const r = decode({
    ...base,
    temperature: 0,
    top_p: 0.5,
    max_output_tokens: 64,
    top_logprobs: 3,
    include: ['message.output_text.logprobs'],
  });
  t.same(r.sampling, { temperature: 0, topP: 0.5, topLogprobs: 3, logprobs: true });
  t.equal(r.maxTokens, 64);
  t.same(decode({ ...base, temperature: null, top_p: null }).sampling, {}, 'null means absent');
});

t.test('metadata: 16 pairs, keys ≤ 64, string values ≤ 512', async (t) => {
  const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
  rejects(t, { ...base, metadata: many }, 'metadata', /at most 16 properties/);
  rejects(t, { ...base, metadata: { ['k'.repeat(65)]: 'v' } }, 'metadata');
  rejects(t, { ...base, metadata: { k: 'v'.repeat(513) } }, 'metadata');
  rejects(t, { ...base, metadata: { k: 1 } }, 'metadata');
  rejects(t, { ...base, metadata: [] }, 'metadata');
  const ok = Object.fromEntries(
    Array.from({ length: 16 }, (_, i) => [`${'k'.repeat(62)}${String(i).padStart(2, '0')}`, 'v'.repeat(512)]),
  );
  t.same(decode({ ...base, metadata: ok }).metadata, ok, 'the limits themselves are allowed');
});

t.test('text.format: text, json_object, json_schema with its name rules', async (t) => {
  t.same(decode({ ...base, text: { format: { type: 'text' } } }).output, { type: 'text' });
  t.same(decode({ ...base, text: { format: { type: 'json_object' } } }).output, { type: 'json' });
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  t.same(
    decode({
      ...base,
      text: { format: { type: 'json_schema', name: 'my-Schema_1', schema, description: 'd', strict: true } },
    }).output,
    {
      type: 'json-schema',
      name: 'my-Schema_1',
      schema,
      strict: true,
      description: 'd',
    },
  );
  t.same(
    decode({ ...base, text: { format: { type: 'json_schema', name: 'n', schema } } }).output,
    { type: 'json-schema', name: 'n', schema, strict: false },
    'strict defaults to false',
  );
  rejects(
    t,
    { ...base, text: { format: { type: 'json_schema', name: 'has space', schema } } },
    'text.format.name',
    /pattern/,
  );
  rejects(
    t,
    { ...base, text: { format: { type: 'json_schema', name: 'x'.repeat(65), schema } } },
    'text.format.name',
    /maximum length 64/,
  );
  rejects(t, { ...base, text: { format: { type: 'json_schema', schema } } }, 'text.format.name', /Missing required/);
  rejects(t, { ...base, text: { format: { type: 'json_schema', name: 'n' } } }, 'text.format.schema');
  rejects(t, { ...base, text: { format: { type: 'yaml' } } }, 'text.format.type');
  t.equal(
    decode({ ...base, text: { format: { type: 'json_schema', name: 'x'.repeat(64), schema } } }).output?.type,
    'json-schema',
  );
  t.equal(decode({ ...base, text: { verbosity: 'low' } }).verbosity, 'low');
});

t.test('function tools: strict defaults to true; name pattern; parameters required', async (t) => {
  const params = { type: 'object', properties: {} };
  const r = decode({
    ...base,
    tools: [
      { type: 'function', name: 'get_weather', parameters: params },
      { type: 'function', name: 'f2', parameters: null, strict: false, description: 'd' },
    ],
  });
  t.same(r.tools, [
    { type: 'function', name: 'get_weather', parameters: params, strict: true },
    { type: 'function', name: 'f2', parameters: { type: 'object', properties: {} }, strict: false, description: 'd' },
  ]);
  rejects(t, { ...base, tools: [{ type: 'function', name: 'bad name', parameters: params }] }, 'tools[0].name');
  rejects(t, { ...base, tools: [{ type: 'function', parameters: params }] }, 'tools[0].name');
  rejects(t, { ...base, tools: [{ type: 'function', name: 'f' }] }, 'tools[0].parameters');
  // Open world: a tool type without an IR form is dropped and named (was a 400).
  const mcp = decode({ ...base, tools: [{ type: 'mcp', server_label: 'x', headers: { authorization: 'secret' } }] });
  t.same(mcp.tools, []);
  t.equal(
    mcp.extensions['openai-responses']?.['tools[0]'],
    'mcp',
    'noted by its param path; only the type, never the settings',
  );
  rejects(t, { ...base, tools: [{ name: 'f' }] }, 'tools[0].type');
});

t.test('built-in tools are validated and kept whole as BuiltinTool options', async (t) => {
  const fs = {
    type: 'file_search',
    vector_store_ids: ['vs_1'],
    max_num_results: 50,
    ranking_options: { ranker: 'auto', score_threshold: 1 },
  };
  const ws = {
    type: 'web_search_preview_2025_03_11',
    search_context_size: 'high',
    user_location: { type: 'approximate', country: 'GB', city: 'London' },
  };
  const cu = { type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'browser' };
  const r = decode({ ...base, tools: [fs, ws, cu] });
  t.same(r.tools, [
    { type: 'builtin', kind: 'file-search', name: 'file_search', options: fs },
    { type: 'builtin', kind: 'web-search', name: 'web_search_preview_2025_03_11', options: ws },
    { type: 'builtin', kind: 'computer-use', name: 'computer_use_preview', options: cu },
  ]);
  rejects(t, { ...base, tools: [{ ...fs, max_num_results: 0 }] }, 'tools[0].max_num_results');
  rejects(t, { ...base, tools: [{ ...fs, max_num_results: 51 }] }, 'tools[0].max_num_results', /<= 50/);
  rejects(
    t,
    { ...base, tools: [{ ...fs, ranking_options: { score_threshold: 1.2 } }] },
    'tools[0].ranking_options.score_threshold',
  );
  rejects(t, { ...base, tools: [{ type: 'file_search' }] }, 'tools[0].vector_store_ids');
  rejects(t, { ...base, tools: [{ ...fs, filters: { type: 'eq', key: 'a' } }] }, 'tools[0].filters.value');
  rejects(
    t,
    { ...base, tools: [{ ...fs, filters: { type: 'and', filters: [{ type: 1, key: 'a', value: 1 }] } }] },
    'tools[0].filters.filters[0].type',
  );
  t.ok(
    decode({
      ...base,
      tools: [
        {
          ...fs,
          filters: {
            type: 'or',
            filters: [
              { type: 'eq', key: 'a', value: 'x' },
              { type: 'gte', key: 'n', value: 2 },
            ],
          },
        },
      ],
    }),
  );
  rejects(
    t,
    { ...base, tools: [{ type: 'computer_use_preview', display_width: 1024, environment: 'mac' }] },
    'tools[0].display_height',
  );
  rejects(t, { ...base, tools: [{ ...cu, display_width: 'wide' }] }, 'tools[0].display_width');
  rejects(t, { ...base, tools: [{ ...cu, environment: 3 }] }, 'tools[0].environment');
  rejects(
    t,
    { ...base, tools: [{ type: 'web_search_preview', user_location: { type: 1 } }] },
    'tools[0].user_location.type',
  );
  rejects(
    t,
    { ...base, tools: [{ type: 'web_search_preview', user_location: { city: 'Paris' } }] },
    'tools[0].user_location.type',
  );
  rejects(
    t,
    { ...base, tools: [{ type: 'web_search_preview', search_context_size: 2 }] },
    'tools[0].search_context_size',
  );
  rejects(
    t,
    { ...base, tools: [{ type: 'web_search_preview', user_location: { type: 'approximate', country: 'France' } }] },
    'tools[0].user_location.country',
  );
});

t.test('tool_choice: strings, function by name, hosted tool, allowed_tools', async (t) => {
  const tools = [
    { type: 'function', name: 'f', parameters: {} },
    { type: 'file_search', vector_store_ids: ['vs'] },
  ];
  t.same(decode({ ...base, tools, tool_choice: 'required' }).toolChoice, { type: 'required' });
  t.same(decode({ ...base, tools, tool_choice: 'none' }).toolChoice, { type: 'none' });
  t.same(decode({ ...base, tools, tool_choice: { type: 'function', name: 'f' } }).toolChoice, {
    type: 'tool',
    name: 'f',
  });
  t.same(decode({ ...base, tools, tool_choice: { type: 'file_search' } }).toolChoice, {
    type: 'tool',
    name: 'file_search',
  });
  t.same(
    decode({
      ...base,
      tools,
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'f' }] },
    }).toolChoice,
    {
      type: 'allowed',
      names: ['f'],
      mode: 'required',
    },
  );
  rejects(t, { ...base, tools, tool_choice: 4 }, 'tool_choice');
  rejects(t, { ...base, tool_choice: 'required' }, 'tool_choice', /must be specified with 'tools'/);
  rejects(t, { ...base, tools, tool_choice: { type: 'function', name: 'g' } }, 'tool_choice', /not found/);
  rejects(t, { ...base, tools, tool_choice: { type: 'web_search_preview' } }, 'tool_choice', /not found/);
  t.equal(decode({ ...base, parallel_tool_calls: false }).parallelToolCalls, false);
  rejects(t, { ...base, parallel_tool_calls: 'yes' }, 'parallel_tool_calls');
});

t.test('reasoning: effort, summary, deprecated generate_summary', async (t) => {
  t.same(decode({ ...base, reasoning: { effort: 'high', summary: 'detailed' } }).reasoning, {
    enabled: true,
    effort: 'high',
    summary: 'detailed',
    includeThoughts: true,
  });
  t.same(decode({ ...base, reasoning: { generate_summary: 'concise' } }).reasoning, {
    enabled: true,
    summary: 'concise',
    includeThoughts: true,
  });
  t.same(
    decode({ ...base, reasoning: { summary: 'auto', generate_summary: 'concise' } }).reasoning?.summary,
    'auto',
    'summary wins',
  );
  t.same(decode({ ...base, reasoning: { effort: 'low' } }).reasoning, { enabled: true, effort: 'low' });
  const none = decode({ ...base, reasoning: { effort: 'none' } });
  t.same(none.reasoning, { enabled: false, effort: 'none' }, 'off, said by name');
  rejects(t, { ...base, reasoning: { effort: 9 } }, 'reasoning.effort');
  rejects(t, { ...base, reasoning: { summary: 1 } }, 'reasoning.summary');
  rejects(t, { ...base, reasoning: { generate_summary: 1 } }, 'reasoning.generate_summary');
});

t.test('state and service fields land in documented extensions', async (t) => {
  const r = decode({
    ...base,
    previous_response_id: 'resp_1',
    store: false,
    include: ['reasoning.encrypted_content', 'file_search_call.results'],
    truncation: 'auto',
    service_tier: 'flex',
    user: 'u-1',
    instructions: 'Be brief.',
    prompt_cache_key: 'pck',
  });
  t.same(r.extensions, {
    'openai-responses': {
      instructions: 'Be brief.',
      previous_response_id: 'resp_1',
      store: false,
      include: ['reasoning.encrypted_content', 'file_search_call.results'],
      truncation: 'auto',
    },
  });
  t.equal(r.promptCacheKey, 'pck', 'a knob both OpenAI formats name');
  t.equal(r.serviceTier, 'flex', 'a tier other formats share is an IR field');
  t.equal(r.user, 'u-1');
  t.same(r.system, [{ type: 'text', text: 'Be brief.' }]);
  // Open world: include values and tiers polygate does not act on are kept for an OpenAI upstream (were 400s).
  t.same(decode({ ...base, include: ['everything'] }).extensions['openai-responses']?.include, ['everything']);
  t.equal(decode({ ...base, service_tier: 'ultrafast' }).extensions['openai-responses']?.service_tier, 'ultrafast');
  rejects(t, { ...base, include: [3] }, 'include[0]');
  rejects(t, { ...base, truncation: 1 }, 'truncation');
  rejects(t, { ...base, service_tier: 7 }, 'service_tier');
  rejects(t, { ...base, store: 'yes' }, 'store');
});

t.test('input items: roles, content types, function calls and outputs, reasoning', async (t) => {
  const r = decode({
    model: 'm',
    instructions: 'First.',
    input: [
      { role: 'developer', content: 'Second.' },
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Third.' }] },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
          { type: 'input_image', file_id: 'file-1' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
          { type: 'input_file', file_id: 'file-2' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [
          { type: 'summary_text', text: 'a' },
          { type: 'summary_text', text: 'b' },
        ],
        encrypted_content: 'ENC',
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get', arguments: '{ "x" : 1 }' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          {
            type: 'output_text',
            text: 'Cited.',
            annotations: [{ type: 'url_citation', url: 'https://a.example', title: 'A', start_index: 0, end_index: 5 }],
          },
          { type: 'refusal', refusal: 'no' },
        ],
      },
      { role: 'user', content: 'thanks' },
    ],
  });
  t.same(r.system, [text('First.'), text('Second.'), text('Third.')]);
  t.same(r.messages, [
    user(
      text('look'),
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, detail: 'low' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
      { type: 'image', source: { kind: 'file-id', fileId: 'file-1' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, filename: 'a.pdf' },
      { type: 'file', source: { kind: 'file-id', fileId: 'file-2' } },
    ),
    assistant(
      { type: 'reasoning', text: 'a\n\nb', origin: 'openai-responses', signature: 'rs_1', encrypted: 'ENC' },
      toolCall('call_1', 'get', '{ "x" : 1 }'),
    ),
    user(toolResult('call_1', '{"ok":true}', { name: 'get' })),
    assistant(
      {
        type: 'text',
        text: 'Cited.',
        citations: [{ kind: 'url', url: 'https://a.example', title: 'A', start: 0, end: 5 }],
      },
      { type: 'refusal', text: 'no' },
    ),
    userText('thanks'),
  ]);
});

t.test('input validation names the item and content index', async (t) => {
  // Open world (these were 400s): an unknown content type is dropped and named; output_text in a user turn is text.
  const unknownPart = decodeInput(
    { role: 'user', content: 'a' },
    { role: 'user', content: 'b' },
    { role: 'user', content: [{ type: 'text', text: 'x' }] },
  );
  t.same(unknownPart.messages, [user(text('a'), text('b'))]);
  t.equal(unknownPart.extensions['openai-responses']?.['input[2].content[0]'], 'text');
  t.same(decodeInput({ role: 'user', content: [{ type: 'output_text', text: 'x' }] }).messages, [userText('x')]);
  rejects(t, { model: 'm', input: [{ role: 'user', content: [{ text: 'x' }] }] }, 'input[0].content[0].type');
  rejects(t, { model: 'm', input: [{ role: 4, content: 'x' }] }, 'input[0].role');
  rejects(t, { model: 'm', input: [{ role: 'user' }] }, 'input[0].content');
  rejects(
    t,
    { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'not a url' }] }] },
    'input[0].content[0].image_url',
  );
  rejects(t, { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input[0].content[0]');
  rejects(
    t,
    { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f', detail: 2 }] }] },
    'input[0].content[0].detail',
  );
  rejects(
    t,
    { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'JVBE' }] }] },
    'input[0].content[0].file_data',
  );
  const systemImage = decodeInput({
    role: 'system',
    content: [
      { type: 'input_image', file_id: 'f' },
      { type: 'input_text', text: 's' },
    ],
  });
  t.same(
    systemImage.system,
    [{ type: 'text', text: 's' }],
    'the system prompt is text: an image there is dropped and named (was a 400)',
  );
  t.equal(systemImage.extensions['openai-responses']?.['input[0].content[0]'], 'input_image');
  rejects(t, { model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f' }] }, 'input[0].arguments');
  rejects(t, { model: 'm', input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id');
  rejects(t, { model: 'm', input: [{ type: 'reasoning', summary: [] }] }, 'input[0].id');
  const hosted = decodeInput({ type: 'computer_call', call_id: 'c', action: {} }, { role: 'user', content: 'go on' });
  t.same(hosted.messages, [userText('go on')], 'hosted-tool traffic is dropped (was a 400)');
  t.equal(hosted.extensions['openai-responses']?.['input[0]'], 'computer_call');
  rejects(t, { model: 'm', input: [{ content: 'x' }] }, 'input[0].type');
  rejects(t, { model: 'm', input: 42 }, 'input');
});

t.test('item_reference: ids plus where each stood, for the pipeline to resolve', async (t) => {
  const r = decodeInput(
    { type: 'item_reference', id: 'msg_a' },
    { role: 'user', content: 'q' },
    { id: 'fc_b' },
    { type: 'function_call_output', call_id: 'c', output: 'r' },
  );
  t.same(r.extensions['openai-responses']?.item_references, ['msg_a', 'fc_b']);
  t.same(r.extensions['openai-responses']?.item_reference_slots, [
    { id: 'msg_a', inputIndex: 0, messageIndex: 0, partIndex: 0 },
    { id: 'fc_b', inputIndex: 2, messageIndex: 0, partIndex: 1 },
  ]);
  t.same(r.messages, [user(text('q'), toolResult('c', 'r'))]);
});

// Codex resends its earlier output items as input. Each is carried when the IR has a place for
// it, else noted by its param path (every upstream encoder warns about it): never a 400.
t.test('resent output items: custom calls carried, reasoning without summary, hosted-tool calls noted', async (t) => {
  const r = decodeInput(
    { role: 'user', content: 'patch it' },
    {
      type: 'reasoning',
      id: 'rs_1',
      summary: [],
      content: [{ type: 'reasoning_text', text: 'thinking' }],
      encrypted_content: 'enc',
    },
    { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' },
    { type: 'custom_tool_call_output', call_id: 'c1', output: 'Done!' },
    {
      type: 'local_shell_call',
      id: 'l1',
      call_id: 'c2',
      status: 'completed',
      action: { type: 'exec', command: ['ls'] },
    },
    { type: 'mcp_call', id: 'm1', server_label: 's', name: 'n', arguments: '{}' },
    { type: 'image_generation_call', id: 'ig1', status: 'completed', result: 'AAAA' },
    {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'output_text', text: 'ok', annotations: [{ type: 'container_file_citation', file_id: 'f' }] },
        { type: 'output_audio', data: 'x' },
      ],
    },
  );
  t.same(
    r.messages[1],
    assistant(
      { type: 'reasoning', text: 'thinking', origin: 'openai-responses', signature: 'rs_1', encrypted: 'enc' },
      toolCall('c1', 'apply_patch', '{"input":"*** Begin Patch"}'),
    ),
  );
  t.same(r.messages[2], user(toolResult('c1', 'Done!', { name: 'apply_patch' })));
  t.same(r.messages[3], assistant(text('ok')));
  t.match(r.extensions['openai-responses'], {
    'input[4]': 'local_shell_call',
    'input[5]': 'mcp_call',
    'input[6]': 'image_generation_call',
    'input[7].content[1]': 'output_audio',
  });
});

t.test('every reasoning effort the SDK knows is an IR effort; none keeps its word', async (t) => {
  for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
    t.same(decode({ ...base, reasoning: { effort } }).reasoning, { enabled: true, effort }, effort);
  }
  const none = decode({ ...base, reasoning: { effort: 'none' } });
  t.same(none.reasoning, { enabled: false, effort: 'none' }, 'off, said by name');
  t.equal(
    decode({ ...base, text: { verbosity: 'terse' } }).extensions['openai-responses']?.verbosity,
    'terse',
    'a verbosity word newer than polygate is relayed',
  );
});

t.test('system and developer items: leading ones join instructions, later ones stay in place', async (t) => {
  const input = [
    { role: 'developer', content: 'Lead.' },
    { role: 'user', content: 'hi' },
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Mode: plan.' }] },
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: 'r' },
    { role: 'system', content: [{ type: 'input_text', text: 'A' }, { type: 'future_part' }] },
    { role: 'system', content: [{ type: 'future_part' }] },
    { role: 'user', content: 'go' },
  ];
  const r = decode({ model: 'm', instructions: 'Top.', input });
  t.strictSame(r.system, [text('Top.'), text('Lead.')]);
  t.strictSame(r.messages, [
    userText('hi'),
    system(text('Mode: plan.')),
    assistant(toolCall('c1', 'f', '{}')),
    user(toolResult('c1', 'r', { name: 'f' })),
    system(text('A')),
    userText('go'),
  ]);
  t.equal(r.extensions['openai-responses']?.['input[5].content[1]'], 'future_part');
  t.equal(r.extensions['openai-responses']?.['input[6].content[0]'], 'future_part');
  // After previous_response_id the input follows earlier turns: even its first instruction is in place.
  const next = decode({
    model: 'm',
    instructions: 'Top.',
    previous_response_id: 'resp_1',
    input: [
      { role: 'developer', content: 'Now.' },
      { role: 'user', content: 'go' },
    ],
  });
  t.strictSame(next.system, [{ type: 'text', text: 'Top.' }]);
  t.strictSame(next.messages, [system(text('Now.')), userText('go')]);
});

t.test("a metadata key named '__proto__' is kept as a key, not an assignment to the object's prototype", async (t) => {
  // JSON.parse makes '__proto__' an own key, as it arrives from the wire.
  const r = decode(JSON.parse('{"model":"m","input":"hi","metadata":{"__proto__":"x","a":"b"}}'));
  t.strictSame(Object.entries(r.metadata ?? {}), [
    ['__proto__', 'x'],
    ['a', 'b'],
  ]);
  t.equal(Object.getPrototypeOf(r.metadata), Object.prototype, 'the prototype untouched');
  const sent = JSON.stringify(responsesUpstreamCodec.encodeRequest(r, 'up', () => {}).body);
  t.match(sent, /"metadata":\{"__proto__":"x","a":"b"\}/, 'an OpenAI upstream gets it');
});
