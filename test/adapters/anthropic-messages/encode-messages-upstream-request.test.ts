// IR request -> Messages upstream call: every IR field carried, emulated, rejected with a 400
// naming field and provider, or (tuning knobs) dropped with a warning.
import t from 'tap';
import { assistant, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import { anthropicClientCodec, anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { caught, ctx, fixtureJson, warnings } from './fixtures.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

import type { JsonObject as Json } from '../../helpers/json.ts';
const ir = (patch: Partial<ChatRequest> = {}): ChatRequest => chatRequest({ model: 'client-model', ...patch });
const encode = (req: ChatRequest) => {
  const w = warnings();
  const out = anthropicUpstreamCodec.encodeRequest(req, 'claude-upstream', w.warn);
  return { ...out, body: out.body as Json, warnings: w.list };
};

t.test('path, version header, model and the required max_tokens default', async (t) => {
  const out = encode(ir());
  t.equal(out.path, '/v1/messages');
  t.same(out.headers, { 'anthropic-version': '2023-06-01' });
  t.same(out.body, {
    model: 'claude-upstream',
    max_tokens: 4096,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  });
  t.same(out.warnings, []);
});

t.test('golden multi-turn request decoded from a Messages client encodes back to an equivalent body', async (t) => {
  const req = anthropicClientCodec.decodeRequest(
    fixtureJson('multi-turn.request.json'),
    ctx({ 'anthropic-beta': 'computer-use-2024-10-22' }),
  );
  const out = encode(req);
  t.same(out.headers, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'computer-use-2024-10-22' });
  t.same(out.warnings, []);
  t.same(out.body, {
    model: 'claude-upstream',
    max_tokens: 1024,
    system: [
      { type: 'text', text: 'You are a weather assistant.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Answer in one sentence.' },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is the weather in Paris?' },
          {
            type: 'image',
            source: {
              type: 'base64',
              media_type: 'image/png',
              data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
            },
          },
          {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: 'Paris is in France.' },
            title: 'notes.txt',
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris', days: 2 } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01A',
            content: [{ type: 'text', text: 'sunny, 21C' }],
            cache_control: { type: 'ephemeral', ttl: '1h' },
          },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01B',
            content: [{ type: 'text', text: 'station offline' }],
            is_error: true,
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It is' }] },
    ],
    tools: [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer' } },
          required: ['city'],
        },
      },
      // BuiltinTool keeps no dated version: the current one of the kind is sent (see report).
      {
        type: 'computer_20250124',
        name: 'computer',
        display_width_px: 1024,
        display_height_px: 768,
        display_number: 1,
      },
      { type: 'bash_20250124', name: 'bash', cache_control: { type: 'ephemeral' } },
    ],
    tool_choice: { type: 'any', disable_parallel_tool_use: true },
    temperature: 0.5,
    top_p: 0.9,
    top_k: 40,
    stop_sequences: ['\n\nHuman:'],
    metadata: { user_id: 'user-1234' },
    service_tier: 'auto',
    stream: true,
  });
});

t.test('thinking: budget from the IR or from effort, max_tokens kept above it', async (t) => {
  const fromBudget = encode(ir({ maxTokens: 16000, reasoning: { enabled: true, budgetTokens: 10000 } })).body;
  t.same([fromBudget.thinking, fromBudget.max_tokens], [{ type: 'enabled', budget_tokens: 10000 }, 16000]);
  const noMax = encode(ir({ reasoning: { enabled: true, budgetTokens: 2048 } })).body;
  t.same([noMax.thinking, noMax.max_tokens], [{ type: 'enabled', budget_tokens: 2048 }, 2048 + 4096]);
  const fromEffort = encode(ir({ reasoning: { enabled: true, effort: 'high' } })).body;
  t.same(fromEffort.thinking, { type: 'enabled', budget_tokens: 24576 });
  const minimal = encode(ir({ reasoning: { enabled: true, effort: 'minimal' } })).body;
  t.same(minimal.thinking, { type: 'enabled', budget_tokens: 1024 });
  t.same(encode(ir({ reasoning: { enabled: false } })).body.thinking, { type: 'disabled' });
});

t.test('thinking: a budget above the client max_tokens is lowered, with a warning; no room disables it', async (t) => {
  const lowered = encode(ir({ maxTokens: 3000, reasoning: { enabled: true, budgetTokens: 8000 } }));
  t.same([lowered.body.thinking, lowered.body.max_tokens], [{ type: 'enabled', budget_tokens: 2999 }, 3000]);
  t.same(
    lowered.warnings.map((w) => w.field),
    ['reasoning.budget_tokens'],
  );
  const none = encode(ir({ maxTokens: 500, reasoning: { enabled: true, effort: 'low' } }));
  t.notOk('thinking' in none.body);
  t.equal(none.body.max_tokens, 500);
  t.same(
    none.warnings.map((w) => w.field),
    ['reasoning'],
  );
});

t.test(
  'sampling: temperature above 1 is a 400 naming field and provider; thinking-incompatible knobs dropped with warnings',
  async (t) => {
    t.match(
      caught(() => encode(ir({ sampling: { temperature: 1.5 } }))),
      { kind: 'invalid-request', param: 'temperature', message: /anthropic-messages/ },
    );
    t.same(encode(ir({ sampling: { temperature: 0, topP: 1, topK: 3, stop: [] } })).body, {
      model: 'claude-upstream',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      temperature: 0,
      top_p: 1,
      top_k: 3,
    });
    const thinking = encode(
      ir({ reasoning: { enabled: true, budgetTokens: 1024 }, sampling: { temperature: 0.3, topP: 0.5, topK: 5 } }),
    );
    t.notOk('temperature' in thinking.body || 'top_p' in thinking.body || 'top_k' in thinking.body);
    t.same(
      thinking.warnings.map((w) => w.field),
      ['temperature', 'top_p', 'top_k'],
    );
  },
);

t.test('knobs Messages lacks are dropped with a warning each; several candidates are refused', async (t) => {
  const out = encode(
    ir({ sampling: { seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.2, logprobs: true, topLogprobs: 3 } }),
  );
  t.same(
    out.warnings.map((w) => w.field),
    ['seed', 'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs'],
  );
  t.ok(out.warnings.every((w) => w.message.includes('anthropic-messages')));
  t.same(encode(ir({ sampling: { logprobs: false } })).warnings, [], 'logprobs: false asks for nothing');
  t.match(
    caught(() => encode(ir({ sampling: { candidateCount: 2 } }))),
    { kind: 'invalid-request', param: 'candidate_count' },
  );
});

t.test('reasoning goes back only where Anthropic signed it', async (t) => {
  const out = encode(
    ir({
      messages: [
        userText('q'),
        assistant(
          { type: 'reasoning', text: 'mine', signature: 'sig==', origin: 'anthropic-messages' },
          { type: 'reasoning', text: '', redacted: 'opaque', origin: 'anthropic-messages' },
          { type: 'reasoning', text: 'openai summary', encrypted: 'enc', origin: 'openai-responses' },
          { type: 'reasoning', text: 'unsigned', origin: 'anthropic-messages' },
          text('a'),
        ),
      ],
    }),
  );
  t.same((out.body.messages as Json[])[1], {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'mine', signature: 'sig==' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'a' },
    ],
  });
  t.same(
    out.warnings.map((w) => w.field),
    ['messages.1.reasoning', 'messages.1.reasoning'],
  );
});

t.test('tool results travel in user turns first; same-role turns merge; empty turns vanish', async (t) => {
  const out = encode(
    ir({
      messages: [
        userText('q'),
        assistant(toolCall('c1', 'f', '{"x": 1}'), toolResult('c1', 'r1')),
        user(text('also this'), { type: 'tool-result', callId: 'c2', content: [], isError: true }),
        assistant({ type: 'reasoning', text: 'x', origin: 'gemini' }),
        assistant(text('done')),
      ],
    }),
  );
  t.same(out.body.messages, [
    { role: 'user', content: [{ type: 'text', text: 'q' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: { x: 1 } }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'r1' }] },
        { type: 'tool_result', tool_use_id: 'c2', is_error: true },
        { type: 'text', text: 'also this' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ]);
  t.match(
    caught(() => encode(ir({ messages: [assistant(toolCall('c', 'f', '{bad'))] }))),
    {
      kind: 'invalid-request',
      param: 'messages.0.content.0',
    },
  );
});

t.test(
  'media: images and files map onto image and document blocks; what Messages cannot take is refused',
  async (t) => {
    const out = encode(
      ir({
        messages: [
          user(
            { type: 'image', source: { kind: 'url', url: 'https://x/a.png' }, detail: 'high' },
            {
              type: 'file',
              source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' },
              filename: 'a.pdf',
            },
            {
              type: 'file',
              source: { kind: 'base64', mediaType: 'text/markdown', data: Buffer.from('# Hé').toString('base64') },
            },
            { type: 'file', source: { kind: 'url', url: 'https://x/b.pdf' }, title: 'B' },
            { type: 'file', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' } },
            { type: 'file', source: { kind: 'file-id', fileId: 'file_011' } },
          ),
        ],
      }),
    );
    t.same((out.body.messages as Json[])[0].content, [
      { type: 'image', source: { type: 'url', url: 'https://x/a.png' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# Hé' } },
      { type: 'document', source: { type: 'url', url: 'https://x/b.pdf' }, title: 'B' },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } },
      { type: 'document', source: { type: 'file', file_id: 'file_011' } },
    ]);
    t.same(
      out.warnings.map((w) => w.field),
      ['messages.0.content.0.detail'],
    );
    const part = (p: ChatRequest['messages'][number]['parts'][number]) => () =>
      encode(ir({ messages: [{ role: 'user', parts: [p] }] }));
    t.match(caught(part({ type: 'image', source: { kind: 'base64', mediaType: 'image/tiff', data: 'AA' } })), {
      param: 'messages.0.content.0',
      message: /anthropic-messages/,
    });
    t.match(caught(part({ type: 'file', source: { kind: 'base64', mediaType: 'application/zip', data: 'UEs=' } })), {
      param: 'messages.0.content.0',
      message: /anthropic-messages/,
    });
  },
);

t.test('tools: functions become custom tools; built-ins by kind; file search is refused', async (t) => {
  const out = encode(
    ir({
      tools: [
        { type: 'function', name: 'noargs', parameters: {} },
        {
          type: 'function',
          name: 'f',
          description: 'd',
          parameters: { type: 'object', properties: { a: { type: 'string' } } },
          strict: true,
          cache: { type: 'ephemeral' },
        },
        { type: 'builtin', kind: 'web-search', options: { max_uses: 2, search_context_size: 'high' } },
        {
          type: 'builtin',
          kind: 'computer-use',
          options: { display_width: 800, display_height: 600, environment: 'browser' },
        },
        { type: 'builtin', kind: 'text-editor', name: 'str_replace_editor', options: {} },
        { type: 'builtin', kind: 'code-execution', options: {} },
      ],
    }),
  );
  t.same(out.body.tools, [
    { name: 'noargs', input_schema: { type: 'object', properties: {} } },
    {
      name: 'f',
      description: 'd',
      input_schema: { type: 'object', properties: { a: { type: 'string' } } },
      strict: true,
      cache_control: { type: 'ephemeral' },
    },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
    { type: 'computer_20250124', name: 'computer', display_width_px: 800, display_height_px: 600 },
    { type: 'text_editor_20250124', name: 'str_replace_editor' },
    { type: 'code_execution_20250825', name: 'code_execution' },
  ]);
  t.same(
    out.warnings.map((w) => w.field),
    ['tools.2.search_context_size', 'tools.3.environment'],
  );
  t.match(
    caught(() =>
      encode(ir({ tools: [{ type: 'builtin', kind: 'file-search', options: { vector_store_ids: ['vs_1'] } }] })),
    ),
    { param: 'tools.0', message: /anthropic-messages/ },
  );
  t.match(
    caught(() => encode(ir({ tools: [{ type: 'builtin', kind: 'computer-use', options: {} }] }))),
    { param: 'tools.0.display_width_px' },
  );
});

t.test('tool choice: required -> any, allowed narrows the offered tools, parallel flag', async (t) => {
  const fn = (name: string) => ({ type: 'function' as const, name, parameters: { type: 'object' } });
  const tools = [fn('a'), fn('b'), fn('c')];
  t.same(encode(ir({ tools, toolChoice: { type: 'required' } })).body.tool_choice, { type: 'any' });
  t.same(encode(ir({ tools, toolChoice: { type: 'none' } })).body.tool_choice, { type: 'none' });
  t.same(encode(ir({ tools, toolChoice: { type: 'tool', name: 'b' }, parallelToolCalls: false })).body.tool_choice, {
    type: 'tool',
    name: 'b',
    disable_parallel_tool_use: true,
  });
  t.same(encode(ir({ tools, parallelToolCalls: false })).body.tool_choice, {
    type: 'auto',
    disable_parallel_tool_use: true,
  });
  t.notOk('tool_choice' in encode(ir({ tools })).body);
  t.notOk('tool_choice' in encode(ir({ toolChoice: { type: 'auto' } })).body, 'no tools, no tool_choice');
  const allowed = encode(ir({ tools, toolChoice: { type: 'allowed', names: ['c', 'a'], mode: 'required' } })).body;
  t.same(
    (allowed.tools as Json[]).map((x) => x.name),
    ['a', 'c'],
  );
  t.same(allowed.tool_choice, { type: 'any' });
});

t.test('output formats: json schema natively, plain json by instruction', async (t) => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } } };
  t.same(encode(ir({ output: { type: 'json-schema', name: 'x', schema } })).body.output_config, {
    format: { type: 'json_schema', schema },
  });
  const json = encode(ir({ system: [{ type: 'text', text: 'be brief' }], output: { type: 'json' } })).body;
  t.equal((json.system as Json[]).length, 2);
  t.same((json.system as Json[])[0], { type: 'text', text: 'be brief' });
  t.match((json.system as Json[])[1], { type: 'text', text: /JSON/ });
  t.notOk('output_config' in encode(ir({ output: { type: 'text' } })).body);
});

t.test('user, metadata, stream and extensions', async (t) => {
  const out = encode(
    ir({
      user: 'u-1',
      metadata: { team: 'x' },
      stream: true,
      serviceTier: 'flex',
      extensions: {
        'anthropic-messages': { 'anthropic-beta': ['b1', 'b2'], output_config: { effort: 'low' }, container: 'c_1' },
        'openai-chat': { store: true },
      },
    }),
  );
  t.same(out.body.metadata, { user_id: 'u-1' });
  t.equal(out.body.stream, true);
  t.equal(out.body.container, 'c_1');
  t.same(out.body.output_config, { effort: 'low' });
  t.notOk('service_tier' in out.body, "OpenAI's flex tier has no Anthropic equivalent");
  t.equal(encode(ir({ serviceTier: 'standard' })).body.service_tier, 'standard_only');
  t.equal(out.headers['anthropic-beta'], 'b1,b2');
  t.same(out.warnings.map((w) => w.field).sort(), ['metadata', 'service_tier', 'store']);
});

t.test(
  'hosted tools from other formats: their own type and name are not settings; a forced one is named the Anthropic way',
  async (t) => {
    const out = encode(
      ir({
        tools: [
          {
            type: 'builtin',
            kind: 'web-search',
            name: 'web_search_preview',
            options: { type: 'web_search_preview', user_location: { type: 'approximate', country: 'FR' } },
          },
          { type: 'builtin', kind: 'code-execution', name: 'codeExecution', options: {} },
        ],
        toolChoice: { type: 'tool', name: 'web_search_preview' },
      }),
    );
    t.same(out.body.tools, [
      { type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', country: 'FR' } },
      { type: 'code_execution_20250825', name: 'code_execution' },
    ]);
    t.same(out.body.tool_choice, { type: 'tool', name: 'web_search' });
    t.same(out.warnings, [], 'nothing reported as dropped');
  },
);

t.test("a Gemini tool's settings Anthropic has no place for are reported, not carried silently", async (t) => {
  const out = encode(
    ir({
      tools: [
        {
          type: 'builtin',
          kind: 'web-search',
          name: 'googleSearchRetrieval',
          options: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC' } },
        },
      ],
    }),
  );
  t.same(out.body.tools, [{ type: 'web_search_20250305', name: 'web_search' }]);
  t.same(
    out.warnings.map((w) => w.field),
    ['tools.0.dynamicRetrievalConfig'],
  );
});

t.test(
  'adaptive thinking with an effort: thinking adaptive, output_config.effort at the nearest Anthropic level',
  async (t) => {
    const adaptive = encode(
      ir({ reasoning: { enabled: true, adaptive: true, effort: 'high', includeThoughts: true } }),
    );
    t.same(adaptive.body.thinking, { type: 'adaptive' });
    t.same(adaptive.body.output_config, { effort: 'high' });
    t.equal(adaptive.body.max_tokens, 4096, 'no budget to make room for');
    t.same(
      encode(ir({ reasoning: { enabled: true, adaptive: true, effort: 'minimal' } })).body.output_config,
      { effort: 'low' },
      'minimal -> low',
    );
    t.same(encode(ir({ reasoning: { enabled: true, adaptive: true, includeThoughts: false } })).body.thinking, {
      type: 'adaptive',
      display: 'omitted',
    });
    t.notOk(
      'output_config' in encode(ir({ reasoning: { enabled: true, adaptive: true, effort: 'none' } })).body,
      "'none' has no Anthropic effort",
    );
    const budget = encode(ir({ reasoning: { enabled: true, adaptive: true, budgetTokens: 2048, effort: 'low' } }));
    t.same(budget.body.thinking, { type: 'enabled', budget_tokens: 2048 }, 'a budget the client gave wins');
    const knobs = encode(ir({ reasoning: { enabled: true, adaptive: true }, sampling: { topK: 5 } }));
    t.notOk('top_k' in knobs.body, 'adaptive thinking has the same knob limits as enabled thinking');
  },
);

t.test(
  'mid-conversation system messages: kept with the client beta, folded as marked user text otherwise',
  async (t) => {
    const messages: ChatRequest['messages'] = [
      userText('a'),
      assistant(text('b')),
      { role: 'system', parts: [{ type: 'text', text: 'be brief', cache: { type: 'ephemeral', ttl: '1h' } }] },
      userText('c'),
    ];
    const kept = encode(
      ir({
        messages,
        extensions: { 'anthropic-messages': { 'anthropic-beta': ['mid-conversation-system-2026-04-07'] } },
      }),
    );
    t.same(kept.body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
      {
        role: 'system',
        content: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      },
      { role: 'user', content: [{ type: 'text', text: 'c' }] },
    ]);
    t.same(kept.headers['anthropic-beta'], 'mid-conversation-system-2026-04-07');
    t.same(kept.warnings, []);
    const folded = encode(ir({ messages }));
    t.same(folded.body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-instruction>\nbe brief\n</system-instruction>' },
          { type: 'text', text: 'c' },
        ],
      },
    ]);
    t.same(
      folded.warnings.map((w) => w.field),
      ['messages.2'],
    );
    t.match(folded.warnings[0].message, /folded into user turns/);
  },
);
