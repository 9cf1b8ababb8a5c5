// `namespace` tools (Codex CLI groups MCP tools in them): flattened into IR function tools named
// `<namespace>__<name>` for upstreams without namespaces, and restored on every tool call this
// adapter sends back, in the JSON response and in the stream (ResponseFunctionToolCall.namespace
// in node_modules/openai/resources/responses/responses.d.ts).
import t from 'tap';
import { assistant, toolCall, toolResult } from '../ir-messages.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import { createResponsesClientCodec, sequentialIds } from '../../../adapters/openai-responses/index.ts';
import { flatToolName } from '../../../adapters/openai-responses/tool-identities.ts';

const ctx = { headers: {}, params: {}, query: {} };
const codec = () => createResponsesClientCodec(sequentialIds(1_700_000_000));
const fn = (name: string) => ({
  type: 'function',
  name,
  description: `${name} tool`,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
});
const body = {
  model: 'm',
  input: [
    { role: 'user', content: 'find it' },
    { type: 'function_call', namespace: 'mcp__docs', name: 'search', arguments: '{"q":"a"}', call_id: 'c0' },
    { type: 'function_call_output', call_id: 'c0', output: 'nothing' },
  ],
  tools: [
    fn('shell'),
    {
      type: 'namespace',
      name: 'mcp__docs',
      description: 'Docs server',
      tools: [fn('search'), { type: 'custom', name: 'freeform' }],
    },
  ],
  tool_choice: { type: 'function', name: 'search', namespace: 'mcp__docs' },
};

t.test('decode: the namespace becomes flat function tools; calls in history get the same name', async (t) => {
  const req = codec().decodeRequest(body, ctx);
  t.same(
    req.tools.map((x) => (x.type === 'function' ? x.name : x.kind)),
    ['shell', 'mcp__docs__search', 'mcp__docs__freeform'],
  );
  t.same(req.toolChoice, { type: 'tool', name: 'mcp__docs__search' });
  t.same(req.messages[1], assistant(toolCall('c0', 'mcp__docs__search', '{"q":"a"}')));
  t.same(req.messages[2]?.parts[0], toolResult('c0', 'nothing', { name: 'mcp__docs__search' }));
  t.same(req.extensions['openai-responses']?.tool_identities, {
    mcp__docs__search: { namespace: 'mcp__docs', name: 'search' },
    mcp__docs__freeform: { namespace: 'mcp__docs', name: 'freeform', custom: true },
  });
});

t.test('a flattened name longer than 64 characters is shortened with a stable tag', async (t) => {
  const long = flatToolName('n'.repeat(40), 'f'.repeat(40));
  t.equal(long.length, 64);
  t.match(long, /^n+__f+_[0-9a-f]{8}$/);
  t.equal(long, flatToolName('n'.repeat(40), 'f'.repeat(40)), 'stable');
  t.not(long, flatToolName('n'.repeat(40), `${'f'.repeat(39)}g`), 'distinct names stay distinct');
  t.equal(flatToolName('crm', 'lookup'), 'crm__lookup');
  t.equal(flatToolName('my crm.v2', 'lookup'), 'my_crm_v2__lookup', 'characters a function name may not hold become _');
});

const called = (name: string): ChatResult => ({
  id: 'r1',
  model: 'up',
  parts: [{ type: 'tool-call', id: 'call_1', name, args: '{"q":"b"}' }],
  finish: { reason: 'tool-calls', raw: 'tool_use' },
  usage: { inputTokens: 3, outputTokens: 4 },
});

t.test('encode: a call to the flat name comes back namespaced; others unchanged', async (t) => {
  const c = codec();
  const req = c.decodeRequest(body, ctx);
  const out = (c.encodeResult(called('mcp__docs__search'), req) as { output: Array<Record<string, unknown>> }).output;
  t.match(out[0], {
    type: 'function_call',
    name: 'search',
    namespace: 'mcp__docs',
    call_id: 'call_1',
    arguments: '{"q":"b"}',
  });
  const plain = (c.encodeResult(called('shell'), req) as { output: Array<Record<string, unknown>> }).output;
  t.match(plain[0], { type: 'function_call', name: 'shell' });
  t.notOk('namespace' in (plain[0] ?? {}), 'no namespace on a plain function');
});

t.test('stream: added, arguments.done and item.done events carry the namespaced identity', async (t) => {
  const c = codec();
  const req = c.decodeRequest({ ...body, stream: true }, ctx);
  const enc = c.createStreamEncoder(req);
  const frames = [
    { type: 'start', id: 'r1', model: 'up' },
    { type: 'tool-input-start', index: 0, id: 'call_1', name: 'mcp__docs__search' },
    { type: 'tool-input-delta', index: 0, json: '{"q":"b"}' },
    { type: 'tool-input-end', index: 0 },
    { type: 'finish', finish: { reason: 'tool-calls', raw: 'tool_use' }, usage: { inputTokens: 1, outputTokens: 1 } },
  ].flatMap((e) => enc.push(e as Parameters<typeof enc.push>[0]));
  const data = (type: string) =>
    frames.filter((f) => f.event === type).map((f) => JSON.parse(f.data) as Record<string, any>);
  t.match(data('response.output_item.added')[0]?.item, {
    type: 'function_call',
    name: 'search',
    namespace: 'mcp__docs',
  });
  t.match(data('response.output_item.done')[0]?.item, {
    name: 'search',
    namespace: 'mcp__docs',
    arguments: '{"q":"b"}',
  });
  t.equal(data('response.function_call_arguments.done')[0]?.name, 'search');
  t.match(data('response.completed')[0]?.response.output[0], { name: 'search', namespace: 'mcp__docs' });
});

// Custom (free-form) tools: an IR function with one string argument `input`; a call comes back as
// a custom_tool_call carrying that text (ResponseCustomToolCall, custom_tool_call_input events).
const grammar = 'start: begin_patch hunk+ end_patch';
const customBody = {
  model: 'm',
  input: 'patch the file',
  tools: [
    {
      type: 'custom',
      name: 'apply_patch',
      description: 'Apply a patch.',
      format: { type: 'grammar', syntax: 'lark', definition: grammar },
    },
  ],
};

t.test('decode: a custom tool is a function of one string argument, its grammar shown to the model', async (t) => {
  const req = codec().decodeRequest(customBody, ctx);
  t.match(req.tools[0], {
    type: 'function',
    name: 'apply_patch',
    description: 'Apply a patch.',
    parameters: { type: 'object', required: ['input'], properties: { input: { type: 'string' } } },
  });
  t.match(JSON.stringify(req.tools[0]), /begin_patch hunk\+ end_patch/);
});

t.test('encode: the call is a custom_tool_call with the input text, in JSON and in the stream', async (t) => {
  const c = codec();
  const req = c.decodeRequest(customBody, ctx);
  const args = JSON.stringify({ input: '*** Begin Patch\n*** End Patch' });
  const json = c.encodeResult(
    { ...called('apply_patch'), parts: [{ type: 'tool-call', id: 'call_1', name: 'apply_patch', args }] },
    req,
  ) as { output: Array<Record<string, unknown>> };
  t.match(json.output[0], {
    type: 'custom_tool_call',
    name: 'apply_patch',
    call_id: 'call_1',
    input: '*** Begin Patch\n*** End Patch',
    status: 'completed',
  });
  t.notOk('arguments' in (json.output[0] ?? {}));

  const enc = c.createStreamEncoder({ ...req, stream: true });
  const frames = [
    { type: 'start', id: 'r1', model: 'up' },
    { type: 'tool-input-start', index: 0, id: 'call_1', name: 'apply_patch' },
    { type: 'tool-input-delta', index: 0, json: args.slice(0, 10) },
    { type: 'tool-input-delta', index: 0, json: args.slice(10) },
    { type: 'tool-input-end', index: 0 },
    { type: 'finish', finish: { reason: 'tool-calls', raw: 'tool_use' }, usage: { inputTokens: 1, outputTokens: 1 } },
  ].flatMap((e) => enc.push(e as Parameters<typeof enc.push>[0]));
  const events = frames.map((f) => f.event);
  t.notOk(events.includes('response.function_call_arguments.delta'), 'no function-call events for a custom call');
  const data = (type: string) =>
    frames.filter((f) => f.event === type).map((f) => JSON.parse(f.data) as Record<string, any>);
  t.match(data('response.output_item.added')[0]?.item, { type: 'custom_tool_call', name: 'apply_patch', input: '' });
  t.equal(data('response.custom_tool_call_input.delta')[0]?.delta, '*** Begin Patch\n*** End Patch');
  t.equal(data('response.custom_tool_call_input.done')[0]?.input, '*** Begin Patch\n*** End Patch');
  t.match(data('response.output_item.done')[0]?.item, {
    type: 'custom_tool_call',
    input: '*** Begin Patch\n*** End Patch',
    status: 'completed',
  });
});
