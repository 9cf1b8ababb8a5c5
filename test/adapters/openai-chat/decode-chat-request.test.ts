import t from 'tap';
import { assistant, system, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import { openaiChatClientCodec as codec, openaiChatUpstreamCodec } from '../../../adapters/openai-chat/index.ts';
import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { chatToolRound, fixtureJson } from './fixtures.ts';

const ctx: InboundContext = { headers: {}, params: {}, query: {} };
type Body = Record<string, unknown>;
const valid = (): Body => ({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
const decode = (body: unknown) => codec.decodeRequest(body, ctx);
/** A request of just these messages, to the model valid() names. */
const decodeMessages = (...messages: unknown[]) => decode({ model: 'gpt-4.1', messages });

function rejection(body: unknown): GatewayError {
  try {
    decode(body);
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a 400');
}

t.test('golden: developer + mid-conversation system, image, parallel tool calls and their results', async (t) => {
  t.strictSame(decode(fixtureJson('tool-turn.request.json')), fixtureJson('tool-turn.ir.json'));
});

t.test('a minimal request', async (t) => {
  t.strictSame(decode(valid()), {
    model: 'gpt-4.1',
    system: [],
    messages: [userText('hi')],
    tools: [],
    sampling: {},
    stream: false,
    extensions: {},
  });
});

// Each rule: a body that breaks it, and the `param` OpenAI would name.
const rules: Array<[string, (b: Body) => unknown, string]> = [
  ['model is required', (b) => ({ ...b, model: undefined }), 'model'],
  ['model must be a string', (b) => ({ ...b, model: 4 }), 'model'],
  ['messages is required', (b) => ({ ...b, messages: undefined }), 'messages'],
  ['messages must be non-empty', (b) => ({ ...b, messages: [] }), 'messages'],
  ['messages must be an array', (b) => ({ ...b, messages: 'hi' }), 'messages'],
  ['a message must be an object', (b) => ({ ...b, messages: ['hi'] }), 'messages[0]'],
  [
    // An unknown role word is no error (test/adapters/shared/open-enum.test.ts); a non-string is.
    'role must be a string',
    (b) => ({
      ...b,
      messages: [
        { role: 'user', content: 'a' },
        { role: 7, content: 'b' },
      ],
    }),
    'messages[1].role',
  ],
  [
    'legacy function role',
    (b) => ({ ...b, messages: [{ role: 'function', name: 'f', content: 'x' }] }),
    'messages[0].role',
  ],
  ['user content required', (b) => ({ ...b, messages: [{ role: 'user' }] }), 'messages[0].content'],
  ['user content parts non-empty', (b) => ({ ...b, messages: [{ role: 'user', content: [] }] }), 'messages[0].content'],
  [
    'audio input unsupported',
    (b) => ({
      ...b,
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } }] }],
    }),
    'messages[0].content[0].type',
  ],
  [
    'text part needs text',
    (b) => ({ ...b, messages: [{ role: 'user', content: [{ type: 'text' }] }] }),
    'messages[0].content[0].text',
  ],
  [
    'image_url needs a URL',
    (b) => ({ ...b, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }),
    'messages[0].content[0].image_url.url',
  ],
  [
    'image_url must be http(s) or data',
    (b) => ({
      ...b,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
    }),
    'messages[0].content[0].image_url.url',
  ],
  [
    'image detail string',
    (b) => ({
      ...b,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 3 } }] }],
    }),
    'messages[0].content[0].image_url.detail',
  ],
  [
    'file needs data or id',
    (b) => ({ ...b, messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }] }),
    'messages[0].content[0].file',
  ],
  [
    'tool message needs tool_call_id',
    (b) => ({
      ...b,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', content: 'r' },
      ],
    }),
    'messages[2].tool_call_id',
  ],
  [
    'tool message needs content',
    (b) => ({ ...b, messages: [{ role: 'tool', tool_call_id: 'c' }] }),
    'messages[0].content',
  ],
  [
    'assistant needs content or tool_calls',
    (b) => ({ ...b, messages: [{ role: 'user', content: 'x' }, { role: 'assistant' }] }),
    'messages[1].content',
  ],
  [
    'assistant function_call is deprecated',
    (b) => ({ ...b, messages: [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] }),
    'messages[0].function_call',
  ],
  [
    'tool call arguments must be a string',
    (b) => ({
      ...b,
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { a: 1 } } }],
        },
      ],
    }),
    'messages[0].tool_calls[0].function.arguments',
  ],
  ['temperature above 2', (b) => ({ ...b, temperature: 2.5 }), 'temperature'],
  ['temperature below 0', (b) => ({ ...b, temperature: -0.1 }), 'temperature'],
  ['temperature must be a number', (b) => ({ ...b, temperature: 'hot' }), 'temperature'],
  ['top_p above 1', (b) => ({ ...b, top_p: 1.5 }), 'top_p'],
  ['presence_penalty range', (b) => ({ ...b, presence_penalty: 3 }), 'presence_penalty'],
  ['frequency_penalty range', (b) => ({ ...b, frequency_penalty: -3 }), 'frequency_penalty'],
  ['n at least 1', (b) => ({ ...b, n: 0 }), 'n'],
  ['n must be an integer', (b) => ({ ...b, n: 1.5 }), 'n'],
  ['n above 1 (one choice per answer)', (b) => ({ ...b, n: 2 }), 'n'],
  ['max_tokens positive', (b) => ({ ...b, max_tokens: 0 }), 'max_tokens'],
  ['max_completion_tokens integer', (b) => ({ ...b, max_completion_tokens: 10.5 }), 'max_completion_tokens'],
  ['max_completion_tokens positive', (b) => ({ ...b, max_completion_tokens: -1 }), 'max_completion_tokens'],
  ['stop at most 4', (b) => ({ ...b, stop: ['a', 'b', 'c', 'd', 'e'] }), 'stop'],
  ['stop entries are strings', (b) => ({ ...b, stop: ['a', 1] }), 'stop[1]'],
  ['stop string or array', (b) => ({ ...b, stop: 5 }), 'stop'],
  ['seed integer', (b) => ({ ...b, seed: 1.5 }), 'seed'],
  ['top_logprobs needs logprobs', (b) => ({ ...b, top_logprobs: 3 }), 'top_logprobs'],
  ['top_logprobs at most 20', (b) => ({ ...b, logprobs: true, top_logprobs: 21 }), 'top_logprobs'],
  ['response_format type', (b) => ({ ...b, response_format: { type: 'yaml' } }), 'response_format.type'],
  [
    'json_schema needs json_schema',
    (b) => ({ ...b, response_format: { type: 'json_schema' } }),
    'response_format.json_schema',
  ],
  [
    'json_schema needs a name',
    (b) => ({ ...b, response_format: { type: 'json_schema', json_schema: { schema: {} } } }),
    'response_format.json_schema.name',
  ],
  ['tools must be an array', (b) => ({ ...b, tools: {} }), 'tools'],
  [
    'tool name pattern',
    (b) => ({ ...b, tools: [{ type: 'function', function: { name: 'has spaces' } }] }),
    'tools[0].function.name',
  ],
  [
    'tool parameters object',
    (b) => ({ ...b, tools: [{ type: 'function', function: { name: 'f', parameters: [] } }] }),
    'tools[0].function.parameters',
  ],
  [
    'tool_choice shape',
    (b) => ({ ...b, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 5 }),
    'tool_choice',
  ],
  ['tool_choice needs tools', (b) => ({ ...b, tool_choice: 'required' }), 'tool_choice'],
  [
    'named tool_choice needs a name',
    (b) => ({
      ...b,
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: { type: 'function', function: {} },
    }),
    'tool_choice.function.name',
  ],
  [
    'allowed_tools mode',
    (b) => ({
      ...b,
      tools: [{ type: 'function', function: { name: 'f' } }],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 1, tools: [] } },
    }),
    'tool_choice.allowed_tools.mode',
  ],
  ['parallel_tool_calls boolean', (b) => ({ ...b, parallel_tool_calls: 'yes' }), 'parallel_tool_calls'],
  ['reasoning_effort string', (b) => ({ ...b, reasoning_effort: 3 }), 'reasoning_effort'],
  ['stream boolean', (b) => ({ ...b, stream: 'yes' }), 'stream'],
  ['stream_options only with stream', (b) => ({ ...b, stream_options: { include_usage: true } }), 'stream_options'],
  [
    'stream_options.include_usage boolean',
    (b) => ({ ...b, stream: true, stream_options: { include_usage: 'yes' } }),
    'stream_options.include_usage',
  ],
  ['metadata values are strings', (b) => ({ ...b, metadata: { a: 1 } }), 'metadata.a'],
  ['user string', (b) => ({ ...b, user: 42 }), 'user'],
  [
    'audio output unsupported',
    (b) => ({ ...b, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }),
    'audio',
  ],
  ['modalities text only', (b) => ({ ...b, modalities: ['text', 'audio'] }), 'modalities[1]'],
];

for (const [name, mutate, param] of rules) {
  t.test(`400: ${name} → ${param}`, async (t) => {
    const err = rejection(mutate(valid()));
    t.equal(err.kind, 'invalid-request');
    t.equal(err.status, 400);
    t.equal(err.param, param);
    t.ok(err.message.includes(param), `message names the field: ${err.message}`);
  });
}

t.test('a body that is not an object is a 400', async (t) => {
  t.equal(rejection([1, 2]).status, 400);
});

t.test('string content, stop string, max_tokens fallback, top_k, safety_identifier', async (t) => {
  const r = decode({ ...valid(), stop: 'END', max_tokens: 99, top_k: 5, safety_identifier: 'sid-1' });
  t.strictSame(r.sampling, { topK: 5, stop: ['END'] });
  t.equal(r.maxTokens, 99);
  t.equal(r.user, 'sid-1');
  t.equal(r.safetyIdentifier, 'sid-1', 'a knob both OpenAI formats name');
  t.strictSame(r.extensions, {});
  t.equal(
    decode({ ...valid(), max_tokens: 10, max_completion_tokens: 20 }).maxTokens,
    20,
    'max_completion_tokens wins',
  );
});

t.test('reasoning_effort: every level is an IR effort; none keeps its word for OpenAI upstreams', async (t) => {
  for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
    const r = decode({ ...valid(), reasoning_effort: effort });
    t.strictSame(r.reasoning, { enabled: true, effort }, effort);
    t.strictSame(r.extensions, {});
  }
  const none = decode({ ...valid(), reasoning_effort: 'none' });
  t.strictSame(none.reasoning, { enabled: false, effort: 'none' }, 'off, said by name');
  t.strictSame(none.extensions, {});
});

// Open world (each of these was a 400): what has no IR form is dropped and named by its param
// path in extensions, where every upstream encoder warns about it.
t.test('unknown content parts, tool types, tool call types and tool choices are dropped and named', async (t) => {
  const r = decode({
    ...valid(),
    messages: [
      {
        role: 'system',
        content: [
          { type: 'image_url', image_url: { url: 'https://x' } },
          { type: 'text', text: 'sys' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'video', video: {} },
          { type: 'text', text: 'hi' },
        ],
      },
      {
        role: 'assistant',
        tool_calls: [
          { id: 'c1', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
          { id: 'c2', type: 'hologram' },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
    ],
    tools: [
      { type: 'custom', custom: { name: 'apply_patch' } },
      { type: 'retrieval' },
      { type: 'function', function: { name: 'f' } },
    ],
    tool_choice: { type: 'custom', custom: { name: 'apply_patch' } },
  });
  t.strictSame(r.system, [{ type: 'text', text: 'sys' }]);
  t.strictSame(r.messages[0], userText('hi'));
  t.strictSame(
    r.messages[1],
    assistant(toolCall('c1', 'apply_patch', '{"input":"*** Begin Patch"}')),
    'a custom call is carried',
  );
  t.strictSame(
    r.tools.map((x) => (x.type === 'function' ? x.name : x.kind)),
    ['f'],
  );
  t.equal(r.toolChoice, undefined);
  t.match(r.extensions['openai-chat'], {
    'messages[0].content[0]': 'image_url',
    'messages[1].content[0]': 'video',
    'messages[2].tool_calls[1]': 'hologram',
    'tools[0]': 'custom',
    'tools[1]': 'retrieval',
    tool_choice: 'custom',
  });
});

t.test('the deprecated functions / function_call are mapped like tools / tool_choice', async (t) => {
  const r = decode({
    ...valid(),
    functions: [{ name: 'f', parameters: { type: 'object' } }],
    function_call: { name: 'f' },
  });
  t.strictSame(r.tools, [{ type: 'function', name: 'f', parameters: { type: 'object' } }]);
  t.strictSame(r.toolChoice, { type: 'tool', name: 'f' });
  t.strictSame(decode({ ...valid(), functions: [{ name: 'f' }], function_call: 'none' }).toolChoice, { type: 'none' });
  t.equal(rejection({ ...valid(), functions: [{ name: 'f' }], function_call: { name: 'g' } }).param, 'function_call');
});

t.test(
  'web_search_options is the IR web search tool; shared knobs are IR fields; Chat-only ones stay in its namespace',
  async (t) => {
    const r = decode({
      ...valid(),
      web_search_options: {
        search_context_size: 'low',
        user_location: { type: 'approximate', approximate: { city: 'Paris', country: 'FR' } },
      },
      verbosity: 'low',
      prompt_cache_key: 'k',
      service_tier: 'flex',
      store: true,
      some_future_field: { a: 1 },
    });
    t.strictSame(r.tools, [
      {
        type: 'builtin',
        kind: 'web-search',
        name: 'web_search',
        options: { search_context_size: 'low', user_location: { type: 'approximate', city: 'Paris', country: 'FR' } },
      },
    ]);
    t.strictSame([r.verbosity, r.serviceTier, r.promptCacheKey], ['low', 'flex', 'k']);
    t.strictSame(r.extensions, { 'openai-chat': { store: true, some_future_field: { a: 1 } } });
    t.equal(
      rejection({ ...valid(), web_search_options: { search_context_size: 9 } }).param,
      'web_search_options.search_context_size',
    );
  },
);

t.test('response formats, tool choices and unknown fields', async (t) => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
  t.strictSame(decode({ ...valid(), response_format: { type: 'json_object' } }).output, { type: 'json' });
  t.strictSame(
    decode({
      ...valid(),
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', schema: { type: 'object' }, strict: true, description: 'd' },
      },
    }).output,
    {
      type: 'json-schema',
      name: 'out',
      schema: { type: 'object' },
      description: 'd',
      strict: true,
    },
  );
  t.strictSame(decode({ ...valid(), tools, tool_choice: { type: 'function', function: { name: 'f' } } }).toolChoice, {
    type: 'tool',
    name: 'f',
  });
  t.strictSame(
    decode({
      ...valid(),
      tools,
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'f' } }] },
      },
    }).toolChoice,
    {
      type: 'allowed',
      mode: 'required',
      names: ['f'],
    },
  );
  t.equal(decode({ ...valid(), tool_choice: 'none' }).toolChoice?.type, 'none', "'none' needs no tools");
  t.strictSame(
    decode({ ...valid(), service_tier: 'warp', logit_bias: { '1': 5 } }).extensions,
    { 'openai-chat': { service_tier: 'warp', logit_bias: { '1': 5 } } },
    'kept for Chat upstreams, a tier word newer than polygate too',
  );
  t.equal(
    decode({ ...valid(), service_tier: 'default' }).serviceTier,
    'standard',
    "OpenAI's 'default' is the standard tier",
  );
});

t.test('file parts: data URL, plain base64 and file ids', async (t) => {
  const r = decode({
    model: 'm',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          { type: 'file', file: { filename: 'b.pdf', file_data: 'JVBERi0=' } },
          { type: 'file', file: { file_id: 'file-123' } },
        ],
      },
    ],
  });
  t.strictSame(r.messages[0].parts, [
    { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, filename: 'a.pdf' },
    { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, filename: 'b.pdf' },
    { type: 'file', source: { kind: 'file-id', fileId: 'file-123' } },
  ]);
});

t.test('assistant content parts and refusal', async (t) => {
  const r = decode({
    model: 'm',
    messages: [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'refusal', refusal: 'no' },
        ],
      },
      { role: 'assistant', content: null, refusal: 'still no' },
    ],
  });
  t.strictSame(r.messages.slice(1), [
    assistant(text('a'), { type: 'refusal', text: 'no' }),
    assistant({ type: 'refusal', text: 'still no' }),
  ]);
});

t.test('system and developer messages: leading ones are the system prompt, later ones stay in place', async (t) => {
  const r = decodeMessages(
    { role: 'system', content: 'One.' },
    { role: 'developer', content: [{ type: 'text', text: 'Two.' }] },
    { role: 'user', content: 'hi' },
    { role: 'developer', content: 'Mode: plan.' },
    { role: 'assistant', content: 'ok' },
    {
      role: 'system',
      content: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
    },
    { role: 'system', content: [{ type: 'future_part', x: 1 }] },
    { role: 'user', content: 'go' },
  );
  t.strictSame(r.system, [text('One.'), text('Two.')]);
  t.strictSame(r.messages, [
    userText('hi'),
    system(text('Mode: plan.')),
    assistant(text('ok')),
    system(text('A'), text('B')),
    userText('go'),
  ]);
  // A system message whose every part is unknown leaves no empty instruction; the part is named.
  t.equal(r.extensions['openai-chat']?.['messages[6].content[0]'], 'future_part');
});

t.test('an instruction between tool results and the next user message ends the tool turn', async (t) => {
  const r = decodeMessages(
    { role: 'user', content: 'q' },
    ...chatToolRound('c1', 'f', '{}', 'r'),
    { role: 'developer', content: 'Be brief.' },
    { role: 'tool', tool_call_id: 'c1', content: 'late' },
    { role: 'user', content: 'next' },
  );
  t.strictSame(r.messages.slice(2), [
    user(toolResult('c1', 'r', { name: 'f' })),
    system(text('Be brief.')),
    user(toolResult('c1', 'late', { name: 'f' }), text('next')),
  ]);
});

t.test("a metadata key named '__proto__' is kept as a key, not an assignment to the object's prototype", async (t) => {
  // JSON.parse makes '__proto__' an own key, as it arrives from the wire.
  const r = decode(
    JSON.parse(
      '{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}],"store":true,"metadata":{"__proto__":"x","a":"b"}}',
    ),
  );
  t.strictSame(Object.entries(r.metadata ?? {}), [
    ['__proto__', 'x'],
    ['a', 'b'],
  ]);
  t.equal(Object.getPrototypeOf(r.metadata), Object.prototype, 'the prototype untouched');
  const sent = JSON.stringify(openaiChatUpstreamCodec.encodeRequest(r, 'up', () => {}).body);
  t.match(sent, /"metadata":\{"__proto__":"x","a":"b"\}/, 'an OpenAI upstream gets it');
});
