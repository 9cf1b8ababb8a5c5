// Issue #29: no closed enums on translated routes. Every place a client decoder checks a word
// against a list takes a word it does not know: read as the nearest known one, or left out, and
// noted in ChatRequest.unmapped (a warning on every translated route). One row per check, each
// with a word no release of polygate knows.
import t from 'tap';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import { openaiChatClientCodec } from '../../../adapters/openai-chat/index.ts';
import { responsesClientCodec } from '../../../adapters/openai-responses/index.ts';
import type { ChatClientCodec } from '../../../adapters/shared/chat-adapter.ts';
import { nearestEffort } from '../../../adapters/shared/open-enum.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { GatewayError } from '../../../src/ir/gateway-error.ts';

type Body = Record<string, unknown>;
type Row = {
  /** file:line of the check, as the issue note lists it */
  check: string;
  codec: ChatClientCodec;
  body: Body;
  field: string;
  /** what the decoded request holds instead of a 400 */
  expect: (r: ChatRequest) => unknown;
  want: unknown;
};

const headers = { 'anthropic-version': '2023-06-01' };
const ctxOf = (codec: ChatClientCodec) => ({
  headers: codec === anthropicClientCodec ? headers : {},
  params: { model: 'gemini-x' },
  query: {},
});

const msg = (patch: Body): Body => ({
  model: 'claude-x',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'hi' }],
  ...patch,
});
const chat = (patch: Body): Body => ({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], ...patch });
const resp = (patch: Body): Body => ({ model: 'gpt-x', input: 'hi', ...patch });
const gem = (patch: Body): Body => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...patch });
const fn = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };
const rfn = { type: 'function', name: 'f', parameters: { type: 'object' } };
const gfn = { functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' } }] };

const rows: Row[] = [
  // anthropic-messages
  {
    check: 'decode-messages-request.ts thinking.display',
    codec: anthropicClientCodec,
    body: msg({ thinking: { type: 'adaptive', display: 'narrated' } }),
    field: 'thinking.display',
    expect: (r) => r.reasoning,
    want: { enabled: true, adaptive: true, includeThoughts: true },
  },
  {
    check: 'decode-messages-request.ts output_config.effort',
    codec: anthropicClientCodec,
    body: msg({ thinking: { type: 'adaptive' }, output_config: { effort: 'ultra' } }),
    field: 'output_config.effort',
    expect: (r) => r.reasoning?.effort,
    want: 'max',
  },
  {
    check: 'decode-messages-request.ts thinking.type',
    codec: anthropicClientCodec,
    body: msg({ thinking: { type: 'auto' } }),
    field: 'thinking.type',
    expect: (r) => r.reasoning,
    want: { enabled: true, adaptive: true, includeThoughts: true },
  },
  {
    check: 'decode-messages-request.ts messages.N.role',
    codec: anthropicClientCodec,
    body: msg({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'narrator', content: 'aside' },
      ],
    }),
    field: 'messages.1.role',
    expect: (r) => r.messages.length,
    want: 1,
  },
  {
    check: 'decode-messages-request.ts system.N.type',
    codec: anthropicClientCodec,
    body: msg({
      system: [
        { type: 'text', text: 'be brief' },
        { type: 'memory', id: 'm1' },
      ],
    }),
    field: 'system.1.type',
    expect: (r) => r.system,
    want: [{ type: 'text', text: 'be brief' }],
  },
  {
    check: 'decode-messages-content.ts cache_control.type',
    codec: anthropicClientCodec,
    body: msg({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'pinned' } }] }],
    }),
    field: 'messages.0.content.0.cache_control.type',
    expect: (r) => r.messages[0].parts[0],
    want: { type: 'text', text: 'hi', cache: { type: 'ephemeral' } },
  },
  {
    check: 'decode-messages-content.ts content block type',
    codec: anthropicClientCodec,
    body: msg({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'hologram', data: 'x' },
          ],
        },
      ],
    }),
    field: 'messages.0.content.1',
    expect: (r) => r.messages[0].parts.length,
    want: 1,
  },
  {
    check: 'decode-messages-tools.ts tool_choice.type',
    codec: anthropicClientCodec,
    body: msg({
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'prefer', disable_parallel_tool_use: true },
    }),
    field: 'tool_choice.type',
    expect: (r) => [r.toolChoice, r.parallelToolCalls],
    want: [undefined, false],
  },
  {
    check: 'decode-messages-tools.ts tool type',
    codec: anthropicClientCodec,
    body: msg({ tools: [{ type: 'teleport_20270101', name: 'teleport' }] }),
    field: 'tools.0',
    expect: (r) => r.tools.length,
    want: 0,
  },
  {
    check: 'decode-messages-tools.ts built-in tool name',
    codec: anthropicClientCodec,
    body: msg({ tools: [{ type: 'text_editor_20270101', name: 'edit_files' }] }),
    field: 'tools.0.name',
    expect: (r) => r.tools[0],
    want: { type: 'builtin', kind: 'text-editor', name: 'edit_files', options: {} },
  },
  // openai-chat
  {
    check: 'decode-chat-request.ts reasoning_effort',
    codec: openaiChatClientCodec,
    body: chat({ reasoning_effort: 'extra-high' }),
    field: 'reasoning_effort',
    expect: (r) => r.reasoning,
    want: { enabled: true, effort: 'xhigh' },
  },
  {
    check: 'decode-chat-messages.ts role',
    codec: openaiChatClientCodec,
    body: chat({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'critic', content: 'meh' },
      ],
    }),
    field: 'messages[1].role',
    expect: (r) => r.messages.length,
    want: 1,
  },
  {
    check: 'decode-chat-messages.ts image_url.detail',
    codec: openaiChatClientCodec,
    body: chat({
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'original' } }] },
      ],
    }),
    field: 'messages[0].content[0].image_url.detail',
    expect: (r) => r.messages[0].parts[0],
    want: { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'high' },
  },
  {
    check: 'decode-chat-tools.ts tool_choice string',
    codec: openaiChatClientCodec,
    body: chat({ tools: [fn], tool_choice: 'eventually' }),
    field: 'tool_choice',
    expect: (r) => r.toolChoice,
    want: undefined,
  },
  {
    check: 'decode-chat-tools.ts allowed_tools.mode',
    codec: openaiChatClientCodec,
    body: chat({
      tools: [fn],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'prefer', tools: [fn] } },
    }),
    field: 'tool_choice.allowed_tools.mode',
    expect: (r) => r.toolChoice,
    want: { type: 'allowed', mode: 'auto', names: ['f'] },
  },
  {
    check: 'decode-chat-tools.ts function_call string',
    codec: openaiChatClientCodec,
    body: chat({ functions: [fn.function], function_call: 'maybe' }),
    field: 'function_call',
    expect: (r) => r.toolChoice,
    want: undefined,
  },
  {
    check: 'decode-chat-tools.ts web_search_options.search_context_size',
    codec: openaiChatClientCodec,
    body: chat({ web_search_options: { search_context_size: 'vast' } }),
    field: 'web_search_options.search_context_size',
    expect: (r) => r.tools[0],
    want: { type: 'builtin', kind: 'web-search', name: 'web_search', options: {} },
  },
  // openai-responses
  {
    check: 'decode-responses-request.ts reasoning.effort',
    codec: responsesClientCodec,
    body: resp({ reasoning: { effort: 'lowest' } }),
    field: 'reasoning.effort',
    expect: (r) => r.reasoning,
    want: { enabled: true, effort: 'minimal' },
  },
  {
    check: 'decode-responses-request.ts reasoning.summary',
    codec: responsesClientCodec,
    body: resp({ reasoning: { summary: 'verbose' } }),
    field: 'reasoning.summary',
    expect: (r) => r.reasoning,
    want: { enabled: true, summary: 'auto', includeThoughts: true },
  },
  {
    check: 'decode-responses-request.ts reasoning.generate_summary',
    codec: responsesClientCodec,
    body: resp({ reasoning: { generate_summary: 'verbose' } }),
    field: 'reasoning.generate_summary',
    expect: (r) => r.reasoning?.summary,
    want: 'auto',
  },
  {
    check: 'decode-responses-request.ts truncation',
    codec: responsesClientCodec,
    body: resp({ truncation: 'middle_out' }),
    field: 'truncation',
    expect: (r) => r.extensions['openai-responses']?.truncation,
    want: undefined,
  },
  {
    check: 'decode-responses-tools.ts tool_choice string',
    codec: responsesClientCodec,
    body: resp({ tools: [rfn], tool_choice: 'eventually' }),
    field: 'tool_choice',
    expect: (r) => r.toolChoice,
    want: undefined,
  },
  {
    check: 'decode-responses-tools.ts tool_choice.mode (allowed_tools)',
    codec: responsesClientCodec,
    body: resp({ tools: [rfn], tool_choice: { type: 'allowed_tools', mode: 'prefer', tools: [rfn] } }),
    field: 'tool_choice.mode',
    expect: (r) => r.toolChoice,
    want: { type: 'allowed', mode: 'auto', names: ['f'] },
  },
  {
    check: 'decode-input-items.ts input[N].role',
    codec: responsesClientCodec,
    body: resp({
      input: [
        { role: 'user', content: 'hi' },
        { role: 'observer', content: 'noted' },
      ],
    }),
    field: 'input[1].role',
    expect: (r) => r.messages.length,
    want: 1,
  },
  {
    check: 'decode-input-content.ts input_image.detail',
    codec: responsesClientCodec,
    body: resp({
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png', detail: 'tiny-low' }] }],
    }),
    field: 'input[0].content[0].detail',
    expect: (r) => r.messages[0].parts[0],
    want: { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'low' },
  },
  // gemini
  {
    check: 'decode-generation-config.ts thinkingLevel',
    codec: geminiClientCodec,
    body: gem({ generationConfig: { thinkingConfig: { thinkingLevel: 'ULTRA' } } }),
    field: 'generationConfig.thinkingConfig.thinkingLevel',
    expect: (r) => r.reasoning,
    want: { enabled: true, effort: 'high' },
  },
  {
    check: 'decode-gemini-contents.ts contents[N].role',
    codec: geminiClientCodec,
    body: gem({
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'system', parts: [{ text: 'x' }] },
      ],
    }),
    field: 'contents[1].role',
    expect: (r) => r.messages.length,
    want: 1,
  },
  {
    check: 'decode-gemini-contents.ts executableCode.language',
    codec: geminiClientCodec,
    body: gem({
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ executableCode: { language: 'RUST', code: 'fn main(){}' } }] },
      ],
    }),
    field: 'contents[1].parts[0].executableCode.language',
    expect: (r) => r.messages[1].parts[0],
    want: { type: 'code', language: '', code: 'fn main(){}' },
  },
  {
    check: 'decode-gemini-contents.ts codeExecutionResult.outcome',
    codec: geminiClientCodec,
    body: gem({
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ codeExecutionResult: { outcome: 'OUTCOME_PARTIAL', output: '1' } }] },
      ],
    }),
    field: 'contents[1].parts[0].codeExecutionResult.outcome',
    expect: (r) => r.messages[1].parts[0],
    want: { type: 'code-result', outcome: 'unspecified', output: '1' },
  },
  {
    check: 'decode-gemini-tools.ts functionCallingConfig.mode',
    codec: geminiClientCodec,
    body: gem({ tools: [gfn], toolConfig: { functionCallingConfig: { mode: 'EAGER', allowedFunctionNames: ['f'] } } }),
    field: 'toolConfig.functionCallingConfig.mode',
    expect: (r) => r.toolChoice,
    want: { type: 'allowed', names: ['f'], mode: 'auto' },
  },
  {
    check: 'gemini-schema.ts Schema.type',
    codec: geminiClientCodec,
    body: gem({ tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'DECIMAL' } }] }] }),
    field: 'tools[0].functionDeclarations[0].parameters.type',
    expect: (r) => (r.tools[0]?.type === 'function' ? r.tools[0].parameters : undefined),
    want: {},
  },
];

for (const row of rows) {
  t.test(`${row.check}: an unknown word is no 400`, async (t) => {
    const r = row.codec.decodeRequest(row.body, ctxOf(row.codec));
    t.same(row.expect(r), row.want, 'read as the nearest known word, or left out');
    const note = (r.unmapped ?? []).find((u) => u.field === row.field);
    t.ok(note, `noted for a warning under ${row.field}: ${JSON.stringify(r.unmapped)}`);
    t.match(
      note?.message ?? '',
      /newer than polygate|cannot be translated|has no translation|not a name polygate knows/,
    );
  });
}

t.test('a value of the wrong JSON type is still the 400 naming the field', async (t) => {
  const paramOf = (f: () => unknown): string | null | undefined => {
    try {
      f();
    } catch (e) {
      return (e as GatewayError).param;
    }
    return undefined;
  };
  t.equal(
    paramOf(() =>
      anthropicClientCodec.decodeRequest(
        msg({ thinking: { type: 'adaptive', display: 3 } }),
        ctxOf(anthropicClientCodec),
      ),
    ),
    'thinking.display',
  );
  t.equal(
    paramOf(() => openaiChatClientCodec.decodeRequest(chat({ reasoning_effort: 5 }), ctxOf(openaiChatClientCodec))),
    'reasoning_effort',
  );
});

t.test("Claude Code 2.1.332's request decodes without a note for display 'updates'", async (t) => {
  const r = anthropicClientCodec.decodeRequest(
    msg({
      thinking: { type: 'adaptive', display: 'updates' },
      output_config: { effort: 'high' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    }),
    ctxOf(anthropicClientCodec),
  );
  t.same(r.reasoning, { enabled: true, adaptive: true, includeThoughts: true, effort: 'high' });
  t.equal(r.unmapped, undefined, 'updates is a display polygate knows');
});

t.test('nearestEffort reads the words effort scales are made of', async (t) => {
  const cases: Array<[string, string]> = [
    ['ultra', 'max'],
    ['maximum', 'max'],
    ['xhigh-2', 'xhigh'],
    ['extra_high', 'xhigh'],
    ['higher', 'high'],
    ['lowest', 'minimal'],
    ['light', 'low'],
    ['off', 'none'],
    ['balanced', 'medium'],
  ];
  for (const [word, level] of cases) t.equal(nearestEffort(word), level, word);
});
