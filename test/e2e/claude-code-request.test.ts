// A request shaped like Claude Code 2.1's first call (docs/open-world.md): POST
// /v1/messages?beta=true, streaming, `anthropic-beta` with the mid-conversation-system and effort betas, adaptive thinking with an effort, a `system` message
// inside `messages`, cache_control with a ttl, 24 tools with `eager_input_streaming`, ~75 KB.
// Sent with the official Anthropic SDK to a running polygate routed to
// (a) echo, (b) an emulated Anthropic upstream: relayed, the body byte for byte but the model,
// (c) an emulated OpenAI Chat Completions upstream: translated, with the system message in place.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { gatewayWithUpstreams } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';

const { gw, anth, oai } = await gatewayWithUpstreams(t, {
  models: modelRoutes({
    'claude-relay': 'anth/claude-upstream-9',
    'claude-via-openai': 'oai/gpt-upstream-1',
    'claude-fallback': ['anth/claude-upstream-9', 'oai/gpt-upstream-1'],
  }),
});

const betas = [
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'mid-conversation-system-2026-04-07',
  'effort-2025-11-24',
  'context-management-2025-06-27',
];
const hour = { type: 'ephemeral', ttl: '1h' };
const filler = (n: number): string => 'Use this tool when the task needs it; read the parameters carefully. '.repeat(n);

/** Claude Code's tool list: 24 function tools, each streamed eagerly. */
const tools = Array.from({ length: 24 }, (_, i) => ({
  name:
    ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'Task', 'TodoWrite', 'WebFetch', 'NotebookEdit'][i] ?? `Tool${i}`,
  description: filler(40),
  input_schema: {
    type: 'object',
    properties: { command: { type: 'string', description: filler(2) }, timeout: { type: 'number' } },
    required: ['command'],
    additionalProperties: false,
  },
  eager_input_streaming: true,
  ...(i === 23 ? { cache_control: hour } : {}),
}));

function claudeCodeBody(model: string): Json {
  return {
    model,
    max_tokens: 32000,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: hour },
      { type: 'text', text: filler(60), cache_control: hour },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'list the files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should run ls.', signature: 'EqQBCkYIBxgCKkD0signature==' },
          { type: 'tool_use', id: 'toolu_01A', name: 'Bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'README.md\nsrc' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'There are two entries.' }] },
      { role: 'system', content: 'The date changed; it is now Tuesday.' },
      { role: 'user', content: [{ type: 'text', text: 'say hi', cache_control: { type: 'ephemeral', ttl: '5m' } }] },
    ],
    tools,
    metadata: { user_id: 'user_abc_account_def_session_0123' },
    thinking: { type: 'adaptive' },
    output_config: { effort: 'high' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    stream: true,
  };
}

/** The SDK with a fetch that keeps the exact bytes and headers it sent. */
function recordingClient(): { client: Anthropic; sent: Array<{ url: string; body: string; headers: Headers }> } {
  const sent: Array<{ url: string; body: string; headers: Headers }> = [];
  const client = new Anthropic({
    apiKey: TEST_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    // Claude Code's own SDK build calls the beta path with this query.
    defaultQuery: { beta: 'true' },
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      sent.push({ url: String(url), body: String(init?.body), headers: new Headers(init?.headers) });
      return fetch(url, init);
    },
  });
  return { client, sent };
}

/** Streams the request the way Claude Code does (beta namespace) and collects the events. */
async function run(
  client: Anthropic,
  model: string,
): Promise<{ events: Json[]; text: string; warnings: string | null; route: string | null }> {
  const { data: stream, response } = await client.beta.messages
    .create({ ...claudeCodeBody(model), betas } as any)
    .withResponse();
  const events: Json[] = [];
  let text = '';
  for await (const e of stream as unknown as AsyncIterable<Json>) {
    events.push(e);
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  }
  return {
    events,
    text,
    warnings: response.headers.get('x-polygate-warnings'),
    route: response.headers.get('x-polygate-route'),
  };
}

t.test('the request is as large as Claude Code sends', async (t) => {
  const size = JSON.stringify(claudeCodeBody('m')).length;
  t.ok(size > 60_000 && size < 100_000, `about 75 KB (${size} bytes)`);
});

t.test('(a) echo answers it, streamed', async (t) => {
  const { client, sent } = recordingClient();
  const r = await run(client, 'echo');
  t.match(sent[0].url, /\/v1\/messages\?beta=true$/, 'the SDK called the beta path');
  t.equal(r.text, 'say hi', 'echo answers the last user text');
  t.equal(r.events[0].type, 'message_start');
  t.equal(r.events.at(-1)?.type, 'message_stop');
  t.notOk(
    r.warnings?.includes('eager_input_streaming'),
    'eager_input_streaming is a delivery hint, dropped without a warning',
  );
});

t.test('(b) an Anthropic upstream gets the body byte for byte but the model, and the betas', async (t) => {
  anth.reset();
  const { client, sent } = recordingClient();
  const r = await run(client, 'claude-relay');
  t.equal(r.route, 'anth/claude-upstream-9');
  t.equal(r.warnings, null, 'nothing translated, nothing dropped');
  t.equal(r.events.at(-1)?.type, 'message_stop', 'the upstream stream reached the client');
  t.equal(anth.requests.length, 1);
  const got = anth.requests[0];
  t.equal(got.path, '/v1/messages?beta=true', '?beta=true relayed');
  const expected = sent[0].body.replace('"model":"claude-relay"', '"model":"claude-upstream-9"');
  t.not(expected, sent[0].body, 'the model was in the client body');
  t.equal(
    JSON.stringify(got.body),
    expected,
    'every other byte as the client sent it (system message, adaptive thinking, effort, tool hints, ttl)',
  );
  t.equal(got.headers['anthropic-beta'], sent[0].headers.get('anthropic-beta'), 'anthropic-beta relayed as sent');
  t.match(String(got.headers['anthropic-beta']), /mid-conversation-system-2026-04-07/);
  t.equal(got.headers['x-api-key'], 'sk-upstream-anthropic', 'the upstream key, not the client one');
});

t.test('(c) an OpenAI Chat upstream gets it translated, the system message in place, drops reported', async (t) => {
  oai.reset();
  const { client } = recordingClient();
  const r = await run(client, 'claude-via-openai');
  t.equal(r.text, 'say hi');
  t.equal(r.events.at(-1)?.type, 'message_stop');
  t.ok(r.warnings, 'x-polygate-warnings present');
  t.match(r.warnings, /context_management/, 'an Anthropic-only top-level field is named');
  t.match(r.warnings, /reasoning/, 'the Anthropic thinking block cannot be replayed to OpenAI');
  t.notOk(r.warnings?.includes('eager_input_streaming'), 'no warning for the delivery hint');
  const body = oai.requests[0].body as Json;
  const roles = body.messages.map((m: Json) => m.role);
  t.same(
    roles,
    ['system', 'user', 'assistant', 'tool', 'assistant', 'system', 'user'],
    'the mid-conversation system message stays where it was',
  );
  t.equal(body.messages[5].content, 'The date changed; it is now Tuesday.');
  t.equal(body.reasoning_effort, 'high', 'adaptive thinking with effort high');
  t.equal(body.tools.length, 24);
  t.notOk(
    body.tools.some((x: Json) => 'eager_input_streaming' in x || 'eager_input_streaming' in x.function),
    'the hint is not sent to OpenAI',
  );
});

t.test('a fallback from the relay to a translated route decodes the body then', async (t) => {
  anth.reset();
  oai.reset();
  anth.script({ kind: 'error', status: 529, message: 'Overloaded' });
  const { client } = recordingClient();
  const r = await run(client, 'claude-fallback');
  t.equal(r.route, 'oai/gpt-upstream-1', 'the second route served');
  t.equal(r.text, 'say hi');
  t.equal(anth.requests.length, 1, 'the relay was tried first');
  t.same(
    (oai.requests[0].body as Json).messages.map((m: Json) => m.role),
    ['system', 'user', 'assistant', 'tool', 'assistant', 'system', 'user'],
  );
});

t.test(
  'what only the full decode refuses: relayed as is, and a 400 only once a translated route needs the decode',
  async (t) => {
    anth.reset();
    oai.reset();
    const post = (model: string) =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY },
        // A budget below the Messages minimum: for the upstream to judge when relayed.
        body: JSON.stringify({
          model,
          max_tokens: 4096,
          thinking: { type: 'enabled', budget_tokens: 100 },
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
    const relayed = await post('claude-relay');
    t.equal(relayed.status, 200, 'the emulated upstream takes it, so the relay does');
    t.equal(anth.requests.length, 1);
    anth.script({ kind: 'error', status: 529, message: 'Overloaded' });
    const fellBack = await post('claude-fallback');
    const body = (await fellBack.json()) as Json;
    t.equal(fellBack.status, 400, 'the translated route decodes, and the decode refuses');
    t.equal(body.error.type, 'invalid_request_error');
    t.match(body.error.message, /thinking\.budget_tokens/);
    t.equal(oai.requests.length, 0, 'nothing reached the translated upstream');
  },
);
