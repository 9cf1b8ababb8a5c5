// Fuzzing every decoder of the openai-responses adapter (test/fuzz/chat-fuzz.ts says the property):
// /v1/responses client requests, upstream response objects, upstream event streams and errors.
import fc from 'fast-check';
import t from 'tap';
import {
  createResponsesClientCodec,
  responsesUpstreamCodec,
  sequentialIds,
} from '../../adapters/openai-responses/index.ts';
import type { InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { fuzzChatFormat, regression, upstreamCodecs } from './chat-fuzz.ts';
import { finalResponses, fixtureStreams } from './fixtures.ts';

const contexts: fc.Arbitrary<InboundContext> = fc.record({
  headers: fc.record(
    { 'openai-beta': fc.oneof(fc.constantFrom('responses=v1', ''), fc.string({ maxLength: 12 })) },
    { requiredKeys: [] },
  ),
  params: fc.constant({}),
  query: fc.constant({}),
});

/**
 * A later turn as Codex CLI sends it (docs/clients.md; captured requests in test/clients/fixtures/): earlier output items resent as
 * input (a namespaced call, a custom tool call), a developer message mid-conversation, a
 * `namespace` tool of MCP functions and a `custom` (free-form) tool.
 */
const codexTurn = {
  model: 'gpt-5-codex',
  instructions: 'You are a coding agent.',
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>' }] },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'List the files.' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
        { type: 'input_file', filename: 'notes.txt', file_data: 'data:text/plain;base64,SGVsbG8=' },
      ],
    },
    {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'Run ls.' }],
      content: null,
      encrypted_content: 'gAAAAABo',
    },
    { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'README.md\nsrc' },
    { type: 'function_call', call_id: 'call_2', name: 'search', namespace: 'mcp__docs', arguments: '{"query":"x"}' },
    { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'docs' }] },
    { type: 'custom_tool_call', call_id: 'call_3', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
    { type: 'custom_tool_call_output', call_id: 'call_3', output: 'Done!' },
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }],
    },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Two files.', annotations: [] }] },
    { type: 'item_reference', id: 'msg_1' },
    { role: 'user', content: 'Thanks' },
  ],
  tools: [
    {
      type: 'function',
      name: 'shell',
      description: 'Runs a command',
      strict: false,
      parameters: {
        type: 'object',
        properties: { command: { type: 'array', items: { type: 'string' } } },
        required: ['command'],
      },
    },
    { type: 'web_search', external_web_access: false },
    {
      type: 'namespace',
      name: 'mcp__docs',
      description: 'Tools of the docs MCP server.',
      tools: [
        {
          type: 'function',
          name: 'search',
          strict: false,
          parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
        },
      ],
    },
    {
      type: 'custom',
      name: 'apply_patch',
      description: 'Edits files.',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" LF' },
    },
  ],
  tool_choice: { type: 'function', name: 'shell' },
  parallel_tool_calls: true,
  reasoning: { effort: 'high', summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: 'k-1',
  text: { verbosity: 'low', format: { type: 'json_object' } },
};

/** The same turn without what only a Responses upstream takes, so every encoder reads all of it. */
const portableTurn = {
  ...codexTurn,
  input: codexTurn.input.filter((i) => i.type !== 'item_reference'),
  tools: codexTurn.tools.filter((tool) => tool.type !== 'web_search'),
};

/** Small seeds have few positions, so edits land on the media fields often. */
const mediaTurn = {
  model: 'gpt-4.1',
  input: [
    {
      role: 'user',
      content: [
        { type: 'input_file', filename: 'notes.txt', file_data: 'data:text/plain;base64,SGVsbG8=' },
        { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
      ],
    },
  ],
};

t.test('the Codex seeds are valid requests; every upstream encoder takes the portable one', async (t) => {
  const ctx = { headers: {}, params: {}, query: {} };
  const codec = createResponsesClientCodec(sequentialIds());
  t.doesNotThrow(() => codec.decodeRequest(codexTurn, ctx));
  const req = codec.decodeRequest(portableTurn, ctx);
  t.ok(
    req.messages.some((m) => m.role === 'system'),
    'the mid-conversation developer message is in place',
  );
  t.ok(
    req.tools.some((tool) => tool.type === 'function' && tool.name === 'mcp__docs__search'),
    'the namespace tool is read',
  );
  for (const up of upstreamCodecs) t.doesNotThrow(() => up.encodeRequest(req, 'm', () => {}), up.format);
});

fuzzChatFormat(t, {
  client: createResponsesClientCodec(sequentialIds()),
  upstream: responsesUpstreamCodec,
  requests: [codexTurn, portableTurn, mediaTurn],
  contexts,
  results: finalResponses('openai-responses'),
  streams: fixtureStreams('openai-responses', true),
  errors: [
    { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    {
      error: {
        message: "Invalid 'input[0]'.",
        type: 'invalid_request_error',
        param: 'input[0]',
        code: 'invalid_value',
      },
    },
  ],
});

// Counterexamples the fuzzer found, kept as plain cases (each failed before its fix).
t.test('regressions', async (t) => {
  for (const event of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    regression(
      t,
      `an upstream event named '${event}' (a name of Object.prototype) is an unknown event, not a handler lookup that throws TypeError`,
      () => {
        const dec = responsesUpstreamCodec.createStreamDecoder();
        const first = fixtureStreams('openai-responses', true)[0][0];
        t.same(dec.push({ event, data: first.data }), [], `${event}: ignored like any unknown event`);
      },
    );
  }
});
