// A Codex CLI conversation replayed through a running polygate with the official `openai` SDK,
// in the shape Codex 0.169 sends it (wire_api = "responses"): turn 1 offers function tools, a
// `web_search` tool with `external_web_access` and a `namespace` tool, with `store: false`,
// `include: ["reasoning.encrypted_content"]`, `prompt_cache_key`, `text.verbosity` and
// `reasoning: {effort, summary}`; turn 2 resends turn 1's output items as input (reasoning with
// encrypted_content, a web_search_call, a namespaced function_call and its output, a
// custom_tool_call, a local_shell_call). No target may answer 400; translated ones name what
// they dropped in x-polygate-warnings, and a namespaced call comes back namespaced.
import t from 'tap';
import OpenAI from 'openai';
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

import type { Json } from '../helpers/json.ts';

const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { anth: 'anthropic', chat: 'chat', resp: 'responses' },
  models: modelRoutes({
    'codex-anthropic': 'anth/claude-upstream-1',
    'codex-chat': 'chat/gpt-upstream-1',
    'codex-responses': 'resp/gpt-upstream-2',
  }),
});
const { anth, chat, resp } = up;
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

const instructions = 'You are Codex, a coding agent based on GPT-5. You and the user share the same workspace.';
/** A function tool as Codex declares every one: not strict, an object schema closed to other properties. */
const codexFunction = (name: string, description: string, properties: Json, required: string[]) => ({
  type: 'function',
  name,
  description,
  strict: false,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const shellTool = codexFunction(
  'shell_command',
  'Runs a shell command and returns its output.',
  {
    command: { type: 'string', description: 'The shell script to execute' },
    workdir: { type: 'string' },
    timeout_ms: { type: 'number' },
  },
  ['command'],
);
const planStep = {
  type: 'object',
  properties: { step: { type: 'string' }, status: { type: 'string' } },
  required: ['step', 'status'],
  additionalProperties: false,
};
const planTool = codexFunction(
  'update_plan',
  'Updates the task plan.',
  { explanation: { type: 'string' }, plan: { type: 'array', items: planStep } },
  ['plan'],
);
const viewImageTool = codexFunction(
  'view_image',
  'Attach a local image to the conversation context.',
  { path: { type: 'string' } },
  ['path'],
);
const namespaceTool = {
  type: 'namespace',
  name: 'mcp__docs',
  description: 'Tools of the docs MCP server.',
  tools: [codexFunction('search', 'Search the documentation.', { query: { type: 'string' } }, ['query'])],
};
const applyPatchTool = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files.',
  format: {
    type: 'grammar',
    syntax: 'lark',
    definition: 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?',
  },
};
const tools = [
  shellTool,
  planTool,
  viewImageTool,
  { type: 'web_search', external_web_access: false },
  namespaceTool,
  applyPatchTool,
];

const history = [
  {
    type: 'message',
    role: 'developer',
    content: [
      {
        type: 'input_text',
        text: '<permissions instructions>Filesystem sandboxing: workspace-write.</permissions instructions>',
      },
    ],
  },
  {
    type: 'message',
    role: 'user',
    content: [
      {
        type: 'input_text',
        text: '<environment_context>\n  <cwd>/work/project</cwd>\n  <shell>bash</shell>\n</environment_context>',
      },
    ],
  },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'find the docs for the config loader' }] },
];

const turn = (model: string, input: unknown[]): Json => ({
  model,
  instructions,
  input,
  tools,
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning: { effort: 'medium', summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: '0199a7c2-5b7e-7a10-9a43-3c1f5e2d9b11',
  text: { verbosity: 'low' },
});

/** Turn 1's output items as Codex keeps and resends them. */
const turn1Output = [
  {
    type: 'reasoning',
    id: 'rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    summary: [{ type: 'summary_text', text: '**Looking for the docs**' }],
    content: null,
    encrypted_content: 'gAAAAABo-opaque-encrypted-reasoning-from-openai==',
  },
  {
    type: 'web_search_call',
    id: 'ws_0a1b2c3d',
    status: 'completed',
    action: { type: 'search', query: 'polygate config loader' },
  },
  {
    type: 'message',
    role: 'assistant',
    id: 'msg_01',
    content: [{ type: 'output_text', text: 'Searching the docs.', annotations: [] }],
  },
  {
    type: 'function_call',
    name: 'search',
    namespace: 'mcp__docs',
    arguments: '{"query":"config loader"}',
    call_id: 'call_ns_1',
  },
  {
    type: 'function_call_output',
    call_id: 'call_ns_1',
    output: 'docs/configuration.md: the loader reads config/gateway.yaml',
  },
  { type: 'function_call', name: 'shell_command', arguments: '{"command":"ls docs"}', call_id: 'call_sh_1' },
  { type: 'function_call_output', call_id: 'call_sh_1', output: 'configuration.md\nresilience.md' },
  { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch', call_id: 'call_ap_1' },
  { type: 'custom_tool_call_output', call_id: 'call_ap_1', output: 'Done!' },
  {
    type: 'local_shell_call',
    id: 'lsh_1',
    call_id: 'call_ls_1',
    status: 'completed',
    action: { type: 'exec', command: ['cat', 'README.md'], env: {} },
  },
  { type: 'local_shell_call_output', id: 'lsh_1', call_id: 'call_ls_1', output: '# polygate' },
];
const turn2Input = [
  ...history,
  ...turn1Output,
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'thanks, now summarise it' }] },
];

/** Streams one request through the SDK: every event, the final response, the response headers. */
async function run(body: Json): Promise<{ events: ResponseStreamEvent[]; headers: Headers }> {
  const { data, response } = await client.responses
    .create(body as unknown as ResponseCreateParamsStreaming)
    .withResponse();
  const events: ResponseStreamEvent[] = [];
  for await (const e of data) events.push(e);
  return { events, headers: response.headers };
}
const completed = (events: ResponseStreamEvent[]): Json => {
  const done = events.find((e) => e.type === 'response.completed');
  if (!done || done.type !== 'response.completed')
    throw new Error(`no response.completed in ${events.map((e) => e.type).join(', ')}`);
  return done.response as unknown as Json;
};
const warningsOf = (h: Headers): string => h.get('x-polygate-warnings') ?? '';
/** The answer's text, from the message items of the completed response. */
const textOf = (response: Json): string =>
  (response.output as Json[])
    .flatMap((o) => (o.type === 'message' ? (o.content as Json[]).map((c) => c.text ?? '') : []))
    .join('');
const lastBody = (emu: { requests: Array<{ body: unknown }> }): Json =>
  emu.requests[emu.requests.length - 1]?.body as Json;

t.test('echo: both turns answer, the web_search tool is dropped with a warning', async (t) => {
  const one = await run(turn('echo', history));
  t.equal(completed(one.events).status, 'completed');
  t.match(textOf(completed(one.events)), /find the docs/);
  t.match(warningsOf(one.headers), /tools(\[3\]|\.3).*web_search.*dropped/);
  const two = await run(turn('echo', turn2Input));
  t.equal(completed(two.events).status, 'completed');
  t.match(JSON.stringify(completed(two.events).output), /thanks, now summarise it/);
  // Offering a hosted tool echo lacks is fine; forcing it would promise an answer echo cannot give.
  const forced = await run({ ...turn('echo', history), tool_choice: { type: 'web_search' } }).catch((e: unknown) => e);
  t.type(forced, OpenAI.BadRequestError);
  t.equal((forced as InstanceType<typeof OpenAI.BadRequestError>).param, 'tool_choice');
});

t.test('openai responses upstream, relay (store: false): the body arrives untouched but for the model', async (t) => {
  resp.reset();
  const body = turn('codex-responses', turn2Input);
  const r = await run(body);
  t.equal(completed(r.events).status, 'completed');
  t.strictSame(
    lastBody(resp),
    { ...body, model: 'gpt-upstream-2' },
    'namespace tool, web_search, hosted-tool items and every knob relayed as sent',
  );
  t.equal(r.headers.get('x-polygate-route'), 'resp/gpt-upstream-2');
});

// Issue #29: stored (store: true) is relayed as sent too; polygate stores the turn from what was
// sent and what came back. Translation of namespaced tools is covered on the other upstreams below.
t.test(
  'openai responses upstream, stored (store: true): relayed as sent, stored, the call as the upstream gave it',
  async (t) => {
    resp.reset();
    resp.script({ kind: 'tool', name: 'search', args: '{"query":"loader"}' });
    const body = { ...turn('codex-responses', turn2Input), store: true };
    const r = await run(body);
    t.strictSame(lastBody(resp), { ...body, model: 'gpt-upstream-2' }, 'namespace tool and every knob as sent');
    t.equal(warningsOf(r.headers), '', 'nothing translated, nothing dropped');
    const id = completed(r.events).id as string;
    const stored = await fetch(`${gw.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    t.equal(stored.status, 200, 'stored by polygate');
  },
);

for (const [name, model, emu] of [
  ['anthropic upstream', 'codex-anthropic', anth],
  ['openai chat upstream', 'codex-chat', chat],
] as const) {
  t.test(`${name}, translated: no 400, drops named, namespaced calls restored`, async (t) => {
    emu.reset();
    emu.script(
      { kind: 'tool', name: 'mcp__docs__search', args: '{"query":"loader"}' },
      { kind: 'tool', name: 'apply_patch', args: JSON.stringify({ input: '*** Begin Patch\n*** End Patch\n' }) },
      { kind: 'text', text: 'It reads config/gateway.yaml.' },
    );
    const one = await run(turn(model, history));
    const call = completed(one.events).output.find((o: Json) => o.type === 'function_call');
    t.match(
      call,
      { type: 'function_call', name: 'search', namespace: 'mcp__docs', arguments: '{"query":"loader"}' },
      'the namespaced call restored',
    );
    const added = one.events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'function_call');
    t.match(
      added && added.type === 'response.output_item.added' ? added.item : undefined,
      { name: 'search', namespace: 'mcp__docs' },
      'also in the stream events',
    );
    const sent1 = lastBody(emu);
    const names = JSON.stringify(sent1.tools);
    t.match(names, /mcp__docs__search/, 'the namespaced function offered under its flat name');
    t.match(names, /shell_command/);

    const patch = await run(turn(model, history));
    t.match(
      completed(patch.events).output.find((o: Json) => o.type === 'custom_tool_call'),
      { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' },
      'the free-form tool, offered as a function, is called back as a custom_tool_call',
    );

    const two = await run(turn(model, turn2Input));
    t.equal(completed(two.events).status, 'completed');
    t.match(textOf(completed(two.events)), /config\/gateway\.yaml/);
    const w = warningsOf(two.headers);
    t.notMatch(w, /input\[4\]/, 'the web_search_call is read as text (#27), not dropped');
    t.match(w, /input\[12\]/, 'the local_shell_call named');
    t.match(w, /input\[13\]/, 'the local_shell_call_output named');
    t.match(w, /reasoning/i, "OpenAI's encrypted reasoning cannot go to another provider: named");
    const sent2 = JSON.stringify(lastBody(emu));
    t.match(sent2, /mcp__docs__search/, 'the earlier namespaced call replayed under its flat name');
    t.match(sent2, /docs\/configuration\.md: the loader reads/, 'its output replayed');
    t.match(sent2, /\*\*\* Begin Patch/, 'the custom tool call replayed as a call');
    t.notMatch(sent2, /gAAAAABo-opaque/, 'encrypted reasoning never reaches another provider');
  });
}
