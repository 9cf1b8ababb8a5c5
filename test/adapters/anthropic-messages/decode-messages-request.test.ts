// Client request decoding: every rule of the spec's family E tables and Limits table is a 400
// whose param and message name the field; valid requests map onto the IR without loss.
import t, { type Test } from 'tap';
import { assistant, system, text, toolCall, user as irUser, userText } from '../ir-messages.ts';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { ctx, fixtureJson } from './fixtures.ts';

type Body = Record<string, unknown>;
const decode = (body: unknown, c: InboundContext = ctx()) => anthropicClientCodec.decodeRequest(body, c);
const base = (): Body => ({ model: 'claude-sonnet', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] });
const withBody = (patch: Body): Body => ({ ...base(), ...patch });
const user = (content: unknown): Body => withBody({ messages: [{ role: 'user', content }] });
const assistantThen = (content: unknown): Body =>
  withBody({
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content },
      { role: 'user', content: 'next' },
    ],
  });

/** Asserts a 400 naming `param` in both the param and the message. */
function rejects(t: Test, body: unknown, param: string, c?: InboundContext): void {
  try {
    decode(body, c);
    t.fail(`expected a 400 naming ${param}`);
  } catch (e) {
    t.type(e, GatewayError);
    const err = e as GatewayError;
    t.equal(err.kind, 'invalid-request', `${param}: kind`);
    t.equal(err.status, 400, `${param}: status`);
    t.equal(err.param, param, `${param}: param`);
    t.ok(err.message.includes(param), `message names ${param}: ${err.message}`);
  }
}

t.test('the anthropic-version header is required and date-shaped; any real date passes', async (t) => {
  rejects(t, base(), 'anthropic-version', { headers: {}, params: {}, query: {} });
  rejects(t, base(), 'anthropic-version', ctx({ 'anthropic-version': 'latest' }));
  rejects(t, base(), 'anthropic-version', ctx({ 'anthropic-version': '2023-13-01' }));
  rejects(t, base(), 'anthropic-version', ctx({ 'anthropic-version': '2023-02-30' }));
  for (const v of ['2023-06-01', '2026-10-21', '2023-01-01'])
    t.equal(decode(base(), ctx({ 'anthropic-version': v })).model, 'claude-sonnet', v);
});

t.test('anthropic-beta (comma list or repeated) travels in extensions', async (t) => {
  const one = decode(base(), ctx({ 'anthropic-beta': 'prompt-caching-2024-07-31, pdfs-2024-09-25' }));
  t.same(one.extensions['anthropic-messages']?.['anthropic-beta'], ['prompt-caching-2024-07-31', 'pdfs-2024-09-25']);
  const repeated = decode(base(), {
    headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': ['a-1', 'b-2,c-3'] },
    params: {},
    query: {},
  });
  t.same(repeated.extensions['anthropic-messages']?.['anthropic-beta'], ['a-1', 'b-2', 'c-3']);
});

t.test('body, model and max_tokens', async (t) => {
  rejects(t, 'not an object', 'body');
  rejects(t, [], 'body');
  const noModel = base();
  delete noModel.model;
  rejects(t, noModel, 'model');
  rejects(t, withBody({ model: '' }), 'model');
  rejects(t, withBody({ model: 'm'.repeat(257) }), 'model');
  rejects(t, withBody({ model: 42 }), 'model');
  t.equal(decode(withBody({ model: 'm'.repeat(256) })).model.length, 256, '256 characters pass');
  const noMax = base();
  delete noMax.max_tokens;
  rejects(t, noMax, 'max_tokens');
  rejects(t, withBody({ max_tokens: 1 }), 'max_tokens');
  rejects(t, withBody({ max_tokens: 0 }), 'max_tokens');
  rejects(t, withBody({ max_tokens: 10.5 }), 'max_tokens');
  rejects(t, withBody({ max_tokens: '100' }), 'max_tokens');
  t.equal(decode(withBody({ max_tokens: 2 })).maxTokens, 2, 'greater than 1 passes');
});

t.test('messages: present, non-empty, user/assistant roles, string or block content', async (t) => {
  const none = base();
  delete none.messages;
  rejects(t, none, 'messages');
  rejects(t, withBody({ messages: [] }), 'messages');
  rejects(t, withBody({ messages: 'hi' }), 'messages');
  rejects(t, withBody({ messages: ['hi'] }), 'messages.0');
  // A role newer than polygate is left out with a note (open world, test/adapters/shared/open-enum.test.ts).
  const newer = decode(
    withBody({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'tool', content: 'b' },
      ],
    }),
  );
  t.equal(newer.messages.length, 1);
  t.same(newer.unmapped?.[0]?.field, 'messages.1.role');
  rejects(t, withBody({ messages: [{ content: 'a' }] }), 'messages.0.role');
  rejects(t, withBody({ messages: [{ role: 'user' }] }), 'messages.0.content');
  rejects(t, withBody({ messages: [{ role: 'user', content: 5 }] }), 'messages.0.content');
  rejects(t, withBody({ messages: [{ role: 'user', content: '' }] }), 'messages.0.content');
  rejects(t, withBody({ messages: [{ role: 'user', content: [] }] }), 'messages.0.content');
});

t.test('a system role inside messages is a mid-conversation instruction in place, never merged', async (t) => {
  const body = withBody({
    messages: [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'system', content: 'be nice' },
      {
        role: 'system',
        content: [{ type: 'text', text: 'and brief', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      },
      { role: 'user', content: 'c' },
    ],
  });
  t.same(decode(body).messages, [
    userText('a'),
    assistant(text('b')),
    system(text('be nice')),
    { role: 'system', parts: [{ type: 'text', text: 'and brief', cache: { type: 'ephemeral', ttl: '1h' } }] },
    userText('c'),
  ]);
  rejects(
    t,
    withBody({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'system', content: '' },
      ],
    }),
    'messages.1.content',
  );
  rejects(
    t,
    withBody({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'system', content: [{ type: 'image', source: {} }] },
      ],
    }),
    'messages.1.content',
  );
  // The only message has a role polygate does not know: nothing is left to send.
  rejects(t, withBody({ messages: [{ role: 'tool', content: 'a' }] }), 'messages');
});

t.test('consecutive same-role messages merge into one turn; a final assistant message may be empty', async (t) => {
  const ir = decode(
    withBody({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: [{ type: 'text', text: 'two' }] },
        { role: 'assistant', content: 'three' },
        { role: 'assistant', content: '' },
      ],
    }),
  );
  t.same(ir.messages, [irUser(text('one'), text('two')), assistant(text('three'))]);
});

t.test('system: string or text blocks with cache_control', async (t) => {
  t.same(decode(withBody({ system: 'be terse' })).system, [{ type: 'text', text: 'be terse' }]);
  t.same(
    decode(withBody({ system: [{ type: 'text', text: 'cached', cache_control: { type: 'ephemeral', ttl: '1h' } }] }))
      .system,
    [{ type: 'text', text: 'cached', cache: { type: 'ephemeral', ttl: '1h' } }],
  );
  rejects(t, withBody({ system: 7 }), 'system');
  t.same(decode(withBody({ system: [{ type: 'image', source: {} }] })).unmapped?.[0]?.field, 'system.0.type');
  rejects(t, withBody({ system: [{ type: 'text', text: '' }] }), 'system.0.text');
  const forever = decode(withBody({ system: [{ type: 'text', text: 'x', cache_control: { type: 'forever' } }] }));
  t.same(
    forever.system,
    [{ type: 'text', text: 'x', cache: { type: 'ephemeral' } }],
    'a newer cache type is a cache hint',
  );
  t.same(forever.unmapped?.[0]?.field, 'system.0.cache_control.type');
});

t.test('temperature and top_p lie between 0 and 1, both included, as the real API accepts them', async (t) => {
  for (const field of ['temperature', 'top_p']) {
    for (const bad of [-0.1, 1.5, 'warm']) rejects(t, withBody({ [field]: bad }), field);
  }
  t.same(decode(withBody({ temperature: 0.2, top_p: 0.95 })).sampling, { temperature: 0.2, topP: 0.95 });
  t.same(decode(withBody({ temperature: 0, top_p: 1 })).sampling, { temperature: 0, topP: 1 });
  t.same(decode(withBody({ temperature: 1, top_p: 0 })).sampling, { temperature: 1, topP: 0 });
});

t.test('top_k is an integer above 0; stop_sequences a string array', async (t) => {
  rejects(t, withBody({ top_k: 0 }), 'top_k');
  rejects(t, withBody({ top_k: -3 }), 'top_k');
  rejects(t, withBody({ top_k: 2.5 }), 'top_k');
  rejects(t, withBody({ stop_sequences: 'END' }), 'stop_sequences');
  rejects(t, withBody({ stop_sequences: ['END', 3] }), 'stop_sequences.1');
  t.same(decode(withBody({ top_k: 5, stop_sequences: ['END'] })).sampling, { topK: 5, stop: ['END'] });
});

t.test('stream is a boolean', async (t) => {
  rejects(t, withBody({ stream: 'yes' }), 'stream');
  t.equal(decode(withBody({ stream: true })).stream, true);
  t.equal(decode(base()).stream, false);
});

t.test('metadata.user_id: a string of at most 256 characters', async (t) => {
  rejects(t, withBody({ metadata: 'u' }), 'metadata');
  rejects(t, withBody({ metadata: { user_id: 5 } }), 'metadata.user_id');
  rejects(t, withBody({ metadata: { user_id: 'u'.repeat(257) } }), 'metadata.user_id');
  t.same(
    decode(withBody({ metadata: { user_id: 'u', team: 'x' } })).unmapped,
    [{ field: 'metadata.team', message: 'this metadata field cannot be translated; dropped' }],
    'an unknown metadata key is reported, not refused',
  );
  t.equal(decode(withBody({ metadata: { user_id: 'u'.repeat(256) } })).user, 'u'.repeat(256));
});

t.test('thinking: enabled with 1024 <= budget_tokens < max_tokens, disabled, or adaptive with an effort', async (t) => {
  rejects(t, withBody({ thinking: { type: 'enabled' } }), 'thinking.budget_tokens');
  rejects(t, withBody({ thinking: { type: 'enabled', budget_tokens: 1023 } }), 'thinking.budget_tokens');
  rejects(
    t,
    withBody({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1024 }),
    'thinking.budget_tokens',
  );
  rejects(
    t,
    withBody({ thinking: { type: 'enabled', budget_tokens: 2048.5 }, max_tokens: 4096 }),
    'thinking.budget_tokens',
  );
  rejects(t, withBody({ thinking: { type: 5 } }), 'thinking.type');
  rejects(t, withBody({ thinking: true }), 'thinking');
  t.same(
    decode(withBody({ thinking: { type: 'adaptive', display: 'loud' } })).reasoning,
    { enabled: true, adaptive: true, includeThoughts: true },
    'a newer display mode shows the thinking',
  );
  t.same(decode(withBody({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } })).reasoning, {
    enabled: true,
    adaptive: true,
    includeThoughts: true,
    effort: 'max',
  });
  t.same(decode(withBody({ thinking: { type: 'adaptive', display: 'omitted' } })).reasoning, {
    enabled: true,
    adaptive: true,
    includeThoughts: false,
  });
  t.same(
    decode(withBody({ output_config: { effort: 'low' } })).reasoning,
    { enabled: true, effort: 'low' },
    'an effort alone',
  );
  const later = decode(withBody({ thinking: { type: 'sometimes' }, output_config: { effort: 'turbo' } }));
  t.same(
    later.reasoning,
    { enabled: true, adaptive: true, includeThoughts: true, effort: 'medium' },
    'a newer thinking type is read as adaptive, an effort word that says nothing as medium',
  );
  t.same(
    later.unmapped?.map((u) => u.field),
    ['output_config.effort', 'thinking.type'],
    'and reported, as is an unknown effort',
  );
  t.same(decode(withBody({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1025 })).reasoning, {
    enabled: true,
    budgetTokens: 1024,
    includeThoughts: true,
  });
  t.same(decode(withBody({ thinking: { type: 'disabled' } })).reasoning, { enabled: false });
});

t.test('custom tools: name 1 to 64 characters, input_schema object required', async (t) => {
  const schema = { type: 'object', properties: {} };
  rejects(t, withBody({ tools: {} }), 'tools');
  rejects(t, withBody({ tools: [{ name: '', input_schema: schema }] }), 'tools.0.name');
  rejects(
    t,
    withBody({
      tools: [
        { name: 'a', input_schema: schema },
        { name: 'n'.repeat(65), input_schema: schema },
      ],
    }),
    'tools.1.name',
  );
  rejects(t, withBody({ tools: [{ name: 'f' }] }), 'tools.0.input_schema');
  rejects(t, withBody({ tools: [{ name: 'f', input_schema: 'object' }] }), 'tools.0.input_schema');
  rejects(
    t,
    withBody({
      tools: [
        { name: 'f', input_schema: schema },
        { name: 'f', input_schema: schema },
      ],
    }),
    'tools.1.name',
  );
  const hinted = decode(
    withBody({
      tools: [
        {
          name: 'f',
          input_schema: schema,
          defer_loading: true,
          eager_input_streaming: true,
          input_examples: [{}],
          allowed_callers: ['direct'],
        },
      ],
    }),
  );
  t.same(
    hinted.tools,
    [{ type: 'function', name: 'f', parameters: schema }],
    'unknown tool fields are left out of the IR',
  );
  t.same(
    hinted.unmapped?.map((u) => u.field),
    ['tools.0.defer_loading', 'tools.0.input_examples', 'tools.0.allowed_callers'],
    'and reported, except eager_input_streaming which changes only how the input is streamed',
  );
  const ir = decode(
    withBody({
      tools: [
        {
          type: 'custom',
          name: 'n'.repeat(64),
          description: 'd',
          input_schema: schema,
          strict: true,
          cache_control: { type: 'ephemeral' },
        },
      ],
    }),
  );
  t.same(ir.tools, [
    {
      type: 'function',
      name: 'n'.repeat(64),
      description: 'd',
      parameters: schema,
      strict: true,
      cache: { type: 'ephemeral' },
    },
  ]);
});

t.test('built-in tools of every dated version become BuiltinTools with their settings', async (t) => {
  const ir = decode(
    withBody({
      tools: [
        { type: 'computer_20241022', name: 'computer', display_width_px: 1280, display_height_px: 800 },
        { type: 'bash_20250124', name: 'bash' },
        { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10000 },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['example.com'] },
        { type: 'code_execution_20250825', name: 'code_execution' },
      ],
    }),
  );
  t.same(
    ir.tools.map((x) => (x.type === 'builtin' ? [x.kind, x.name, x.options] : x.type)),
    [
      ['computer-use', 'computer', { display_width_px: 1280, display_height_px: 800 }],
      ['bash', 'bash', {}],
      ['text-editor', 'str_replace_based_edit_tool', { max_characters: 10000 }],
      ['web-search', 'web_search', { max_uses: 3, allowed_domains: ['example.com'] }],
      ['code-execution', 'code_execution', {}],
    ],
  );
  const newer = decode(
    withBody({
      tools: [
        {
          type: 'computer_20250124',
          name: 'computer',
          display_width_px: 1024,
          display_height_px: 768,
          display_number: 1,
        },
      ],
    }),
  );
  t.same(newer.tools, [
    {
      type: 'builtin',
      kind: 'computer-use',
      name: 'computer',
      options: { display_width_px: 1024, display_height_px: 768, display_number: 1 },
    },
  ]);
  rejects(
    t,
    withBody({ tools: [{ type: 'computer_20241022', name: 'computer', display_height_px: 800 }] }),
    'tools.0.display_width_px',
  );
  // A name polygate does not know for a known kind (a newer version may fix a new one) is kept, noted.
  const renamed = decode(withBody({ tools: [{ type: 'bash_20241022', name: 'shell' }] }));
  t.match(renamed.tools[0], { type: 'builtin', kind: 'bash', name: 'shell' });
  t.same(renamed.unmapped?.[0]?.field, 'tools.0.name');
  rejects(t, withBody({ tools: [{ type: 'bash_20241022', name: '' }] }), 'tools.0.name');
  const unknown = decode(
    withBody({
      tools: [
        { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 },
        { name: 'f', input_schema: { type: 'object' } },
        { type: 'mcp_toolset', mcp_server_name: 'm' },
      ],
    }),
  );
  t.same(
    unknown.tools.map((x) => x.type),
    ['builtin', 'function'],
    'tool types without an IR kind are left out; web fetch has one (#27)',
  );
  t.match(unknown.tools[0], { kind: 'web-fetch', name: 'web_fetch', options: { max_uses: 2 } });
  t.same(unknown.unmapped, [
    { field: 'tools.2', message: "tool type 'mcp_toolset' cannot be translated; dropped", hostedTool: true },
  ]);
});

t.test('tool_choice: auto/any/tool/none, disable_parallel_tool_use', async (t) => {
  t.same(decode(withBody({ tool_choice: { type: 'auto' } })).toolChoice, { type: 'auto' });
  t.same(decode(withBody({ tool_choice: { type: 'none' } })).toolChoice, { type: 'none' });
  const any = decode(withBody({ tool_choice: { type: 'any', disable_parallel_tool_use: true } }));
  t.same([any.toolChoice, any.parallelToolCalls], [{ type: 'required' }, false]);
  const tool = decode(withBody({ tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: false } }));
  t.same([tool.toolChoice, tool.parallelToolCalls], [{ type: 'tool', name: 'f' }, true]);
  t.notOk('parallelToolCalls' in decode(withBody({ tool_choice: { type: 'auto' } })), 'absent flag leaves the default');
  rejects(t, withBody({ tool_choice: 'auto' }), 'tool_choice');
  const newerChoice = decode(withBody({ tool_choice: { type: 'required' } }));
  t.equal(newerChoice.toolChoice, undefined, 'a newer choice type is left out');
  t.same(newerChoice.unmapped?.[0]?.field, 'tool_choice.type');
  rejects(t, withBody({ tool_choice: { type: 'tool' } }), 'tool_choice.name');
  rejects(
    t,
    withBody({ tool_choice: { type: 'auto', disable_parallel_tool_use: 'yes' } }),
    'tool_choice.disable_parallel_tool_use',
  );
});

t.test('content blocks: text, image, document', async (t) => {
  rejects(t, user([{ type: 'text', text: '' }]), 'messages.0.content.0.text');
  rejects(t, user([{ type: 'text' }]), 'messages.0.content.0.text');
  const video = decode(
    user([
      { type: 'text', text: 'a' },
      { type: 'video', url: 'x' },
    ]),
  );
  t.same(video.messages[0].parts, [{ type: 'text', text: 'a' }], 'an unknown block type is left out');
  t.same(video.unmapped, [
    { field: 'messages.0.content.1', message: "content block type 'video' cannot be translated; dropped" },
  ]);
  rejects(t, user([{ text: 'a' }]), 'messages.0.content.0.type');
  t.same(
    decode(user([{ type: 'text', text: 'a' }, { type: 'constructor' }])).unmapped?.[0]?.field,
    'messages.0.content.1',
  );
  // Another image type goes to the upstream as sent (it takes it or says why not); a non-image is refused.
  t.match(
    decode(user([{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AAAA' } }])).messages[0],
    {
      parts: [{ type: 'image', source: { mediaType: 'image/bmp' } }],
    },
  );
  rejects(
    t,
    user([{ type: 'image', source: { type: 'base64', media_type: 'text/html', data: 'AAAA' } }]),
    'messages.0.content.0.source.media_type',
  );
  rejects(
    t,
    user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }]),
    'messages.0.content.0.source.data',
  );
  rejects(t, user([{ type: 'image', source: { type: 'ftp', url: 'x' } }]), 'messages.0.content.0.source.type');
  rejects(t, user([{ type: 'image' }]), 'messages.0.content.0.source');
  rejects(
    t,
    user([{ type: 'document', source: { type: 'base64', media_type: 'application/msword', data: 'AA' } }]),
    'messages.0.content.0.source.media_type',
  );
  rejects(
    t,
    user([{ type: 'document', source: { type: 'content', content: [] } }]),
    'messages.0.content.0.source.type',
  );
  rejects(
    t,
    user([{ type: 'document', source: { type: 'url', url: 'https://x/a.pdf' }, citations: { enabled: true } }]),
    'messages.0.content.0.citations',
  );
  const ir = decode(
    user([
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/webp', data: 'UklGR' },
        cache_control: { type: 'ephemeral' },
      },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
        title: 'Report',
      },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
    ]),
  );
  t.same(ir.messages[0].parts, [
    { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
    { type: 'image', source: { kind: 'base64', mediaType: 'image/webp', data: 'UklGR' }, cache: { type: 'ephemeral' } },
    { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, title: 'Report' },
    { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' } },
    { type: 'file', source: { kind: 'text', mediaType: 'text/plain', text: 'plain words' } },
  ]);
});

t.test('content blocks: tool_use and tool_result', async (t) => {
  rejects(t, assistantThen([{ type: 'tool_use', id: 't1', name: 'f', input: 'x' }]), 'messages.1.content.0.input');
  rejects(t, assistantThen([{ type: 'tool_use', id: 't1', name: '', input: {} }]), 'messages.1.content.0.name');
  rejects(t, assistantThen([{ type: 'tool_use', name: 'f', input: {} }]), 'messages.1.content.0.id');
  rejects(t, user([{ type: 'tool_use', id: 't1', name: 'f', input: {} }]), 'messages.0.content.0.type');
  rejects(t, assistantThen([{ type: 'tool_result', tool_use_id: 't1', content: 'x' }]), 'messages.1.content.0.type');
  rejects(t, user([{ type: 'tool_result', content: 'x' }]), 'messages.0.content.0.tool_use_id');
  const doc = decode(
    user([{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'search_result', source: 's' }] }]),
  );
  t.same(
    doc.unmapped?.[0]?.field,
    'messages.0.content.0.content.0',
    'a tool-result block without an IR part is reported',
  );
  rejects(t, user([{ type: 'tool_result', tool_use_id: 't1', is_error: 'no' }]), 'messages.0.content.0.is_error');
  const ir = decode(assistantThen([{ type: 'tool_use', id: 't1', name: 'f', input: { b: 2, a: [1] } }]));
  t.same(ir.messages[1].parts, [toolCall('t1', 'f', '{"b":2,"a":[1]}')]);
  const results = decode(
    user([
      { type: 'tool_result', tool_use_id: 't1' },
      {
        type: 'tool_result',
        tool_use_id: 't2',
        content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }],
        is_error: true,
      },
    ]),
  );
  t.same(results.messages[0].parts, [
    { type: 'tool-result', callId: 't1', content: [], isError: false },
    {
      type: 'tool-result',
      callId: 't2',
      content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }],
      isError: true,
    },
  ]);
});

t.test('content blocks: thinking and redacted_thinking are kept byte-exact with origin anthropic', async (t) => {
  const sig = 'EqQBCgIYAhIM+/==\u00e9';
  const ir = decode(
    assistantThen([
      { type: 'thinking', thinking: 'hmm', signature: sig },
      { type: 'redacted_thinking', data: 'opaque+/=' },
      { type: 'text', text: 'ok' },
    ]),
  );
  t.same(ir.messages[1].parts, [
    { type: 'reasoning', text: 'hmm', signature: sig, origin: 'anthropic-messages' },
    { type: 'reasoning', text: '', redacted: 'opaque+/=', origin: 'anthropic-messages' },
    { type: 'text', text: 'ok' },
  ]);
  rejects(t, assistantThen([{ type: 'thinking', thinking: 'hmm' }]), 'messages.1.content.0.signature');
  rejects(t, assistantThen([{ type: 'redacted_thinking' }]), 'messages.1.content.0.data');
  rejects(t, user([{ type: 'thinking', thinking: 'x', signature: 's' }]), 'messages.0.content.0.type');
});

t.test(
  'web search blocks in history become hosted parts; other server-tool blocks are left out and reported',
  async (t) => {
    const ir = decode(
      assistantThen([
        { type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'q' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 's1',
          content: [{ type: 'web_search_result', url: 'https://a.example/', title: 'A', encrypted_content: 'opaque' }],
        },
        { type: 'server_tool_use', id: 's2', name: 'code_execution', input: {} },
        { type: 'text', text: 'found' },
      ]),
    );
    t.same(ir.messages[1].parts, [
      { type: 'hosted-call', id: 's1', tool: 'web_search', input: { query: 'q' } },
      { type: 'hosted-result', callId: 's1', tool: 'web_search', sources: [{ url: 'https://a.example/', title: 'A' }] },
      { type: 'text', text: 'found' },
    ]);
    t.same(
      ir.unmapped?.map((u) => u.field),
      ['messages.1.content.2'],
    );
    t.match(ir.unmapped?.[0]?.message, /server-run tools/);
  },
);

t.test('structured outputs and unmodelled fields', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  const ir = decode(
    withBody({
      output_config: { format: { type: 'json_schema', schema }, effort: 'low' },
      service_tier: 'auto',
      container: 'c_1',
      mcp_servers: [{ type: 'url', url: 'https://mcp', name: 'm' }],
    }),
  );
  t.same(ir.output, { type: 'json-schema', name: 'response', schema });
  t.same(ir.extensions, {
    'anthropic-messages': { container: 'c_1', mcp_servers: [{ type: 'url', url: 'https://mcp', name: 'm' }] },
  });
  t.equal(ir.serviceTier, 'auto', 'the tier other formats share is an IR field');
  t.equal(decode(withBody({ service_tier: 'standard_only' })).serviceTier, 'standard');
  t.same(
    decode(withBody({ service_tier: 'priority_only' })).extensions,
    { 'anthropic-messages': { service_tier: 'priority_only' } },
    'a tier word newer than polygate stays Anthropic’s',
  );
  t.same(ir.reasoning, { enabled: true, effort: 'low' }, 'output_config.effort is the reasoning effort');
  t.same(
    decode(withBody({ output_format: { type: 'json_schema', schema } })).output,
    { type: 'json-schema', name: 'response', schema },
    'beta-era output_format',
  );
  rejects(t, withBody({ output_config: { format: { type: 'json_object' } } }), 'output_config.format.type');
  rejects(t, withBody({ output_config: { format: { type: 'json_schema' } } }), 'output_config.format.schema');
  rejects(t, withBody({ output_config: 'json' }), 'output_config');
});

t.test('golden: multi-turn request', async (t) => {
  t.same(decode(fixtureJson('multi-turn.request.json')), fixtureJson('multi-turn.ir.json'));
});

t.test('golden: thinking request with structured output', async (t) => {
  t.same(decode(fixtureJson('thinking.request.json')), fixtureJson('thinking.ir.json'));
});
