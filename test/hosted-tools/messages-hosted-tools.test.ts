// Hosted web search and fetch run by polygate (docs/hosted-tools.md), end to end with the official
// Anthropic SDK: a Messages client on an OpenAI Chat Completions upstream, which has no hosted
// search. The upstream emulator is scripted to call polygate's web_search / web_fetch function
// tools, then answer; a SearXNG-style emulator and a small web of pages serve on loopback.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { TEST_KEY, testConfig } from '../helpers/start-gateway.ts';
import { startSearchWeb } from '../emulators/search-web.ts';
import { registry } from '../../src/infra/metrics/registry.ts';

import type { Json } from '../helpers/json.ts';

const web = await startSearchWeb();
t.teardown(() => web.close());

const hostedConfig = (allowPrivate: boolean): Record<string, unknown> => ({
  outbound: { allow_private_addresses: allowPrivate },
  search_backends: { local: { kind: 'searxng', url: `${web.url}/search` } },
  hosted_tools: { search_backend: 'local', fetch_max_bytes: 4096, fetch_timeout_ms: 500, max_rounds: 4 },
});
const models = {
  'claude-hosted': { routes: [{ provider: 'oai', model: 'gpt-upstream-1', hosted_tools: 'run' }] },
  'claude-plain': { routes: [{ provider: 'oai', model: 'gpt-upstream-1' }] },
};
const { app, up } = await inProcessWithEmulators(t, { upstreams: { oai: 'chat' }, models, config: hostedConfig(true) });
const oai = up.oai;
const client = new Anthropic({ apiKey: TEST_KEY, baseURL: app.url, maxRetries: 0 });

const searchTool = (extra: Json = {}): Json => ({ type: 'web_search_20250305', name: 'web_search', ...extra });
const fetchTool = (extra: Json = {}): Json => ({ type: 'web_fetch_20250910', name: 'web_fetch', ...extra });
const ask = (text: string, tools: Json[], model = 'claude-hosted'): Json => ({
  model,
  max_tokens: 512,
  messages: [{ role: 'user', content: text }],
  tools,
});
/** The `tool` messages the upstream received on its last request. */
const toolMessages = (): Json[] =>
  ((oai.requests.at(-1)!.body as Json).messages as Json[]).filter((m) => m.role === 'tool');

t.beforeEach(() => {
  oai.reset();
  web.queries.length = 0;
  web.fetched.length = 0;
  web.fail = false;
});

t.test('a search, then the answer: server_tool_use, web_search_tool_result, cited text, counted', async (t) => {
  const pageA = `${web.url}/page/a`;
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"what is polygate"}', id: 'call_s1' },
    { kind: 'text', text: `Polygate translates protocols (${pageA}).` },
  );
  const msg = (await client.messages.create(ask('What is polygate?', [searchTool()]) as never)) as unknown as Json;
  t.same(
    msg.content.map((b: Json) => b.type),
    ['server_tool_use', 'web_search_tool_result', 'text'],
  );
  t.match(msg.content[0], { id: 'call_s1', name: 'web_search', input: { query: 'what is polygate' } });
  t.equal(msg.content[1].tool_use_id, 'call_s1');
  // The filtered list as the backend gave it; encrypted_content is polygate's own envelope.
  t.same(
    msg.content[1].content.map((r: Json) => r.url),
    [pageA, `${web.url}/page/b`, 'https://docs.allowed.example/x', 'https://blocked.example/y'],
  );
  t.match(msg.content[1].content[0], {
    type: 'web_search_result',
    title: 'Polygate A',
    page_age: '2026-01-02T00:00:00',
  });
  t.match(msg.content[2].citations, [{ type: 'web_search_result_location', url: pageA, title: 'Polygate A' }]);
  t.match(msg.usage, { server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 } });
  t.equal(msg.stop_reason, 'end_turn');
  t.same(web.queries, ['what is polygate']);
  // The upstream saw a function tool, then the results as the tool's answer.
  const first = oai.requests[0].body as Json;
  t.match(first.tools, [{ type: 'function', function: { name: 'web_search' } }]);
  const [result] = toolMessages();
  t.equal(result.tool_call_id, 'call_s1');
  t.match(JSON.stringify(result.content), /Polygate translates protocols\./);
});

t.test('streamed: the search starts and its results arrive as blocks, then cited text', async (t) => {
  const pageB = `${web.url}/page/b`;
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"polygate search"}', id: 'call_s2', text: 'Let me search.' },
    { kind: 'text', text: `It searches itself: ${pageB}` },
  );
  const stream = client.messages.stream({ ...ask('Does polygate search?', [searchTool()]), stream: true } as never);
  const events: Json[] = [];
  stream.on('streamEvent', (e) => void events.push(e as unknown as Json));
  const msg = (await stream.finalMessage()) as unknown as Json;
  t.same(
    msg.content.map((b: Json) => b.type),
    ['text', 'server_tool_use', 'web_search_tool_result', 'text'],
  );
  t.same(msg.content[1].input, { query: 'polygate search' });
  t.equal(msg.content[2].content.length, 4);
  t.match(msg.content[3].citations, [{ type: 'web_search_result_location', url: pageB }]);
  t.match(msg.usage, { server_tool_use: { web_search_requests: 1 } });
  const starts = events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block.type);
  t.same(starts, ['text', 'server_tool_use', 'web_search_tool_result', 'text']);
  t.equal(events.filter((e) => e.type === 'message_start').length, 1, 'one message across both upstream calls');
  t.ok(events.some((e) => e.type === 'content_block_delta' && e.delta.type === 'citations_delta'));
});

t.test('a second turn resends the blocks: the upstream reads the results as text', async (t) => {
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"polygate"}', id: 'call_s3' },
    { kind: 'text', text: 'Polygate translates protocols.' },
  );
  const first = (await client.messages.create(ask('What is polygate?', [searchTool()]) as never)) as unknown as Json;
  oai.reset();
  oai.script({ kind: 'text', text: 'As I found before.' });
  const second = (await client.messages.create({
    ...ask('', [searchTool()]),
    messages: [
      { role: 'user', content: 'What is polygate?' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: 'Say it again.' },
    ],
  } as never)) as unknown as Json;
  t.equal(second.content[0].text, 'As I found before.');
  const sent = JSON.stringify((oai.requests[0].body as Json).messages);
  t.match(sent, /web_search/);
  t.match(sent, /Polygate runs web search itself\./, 'the snippet comes back from the envelope');
  t.match(sent, /page\/a/);
});

t.test('max_uses: a search over the limit is an error result the model reads', async (t) => {
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"one"}', id: 'c1' },
    { kind: 'tool', name: 'web_search', args: '{"query":"two"}', id: 'c2' },
    { kind: 'text', text: 'Done.' },
  );
  const msg = (await client.messages.create(
    ask('Search twice', [searchTool({ max_uses: 1 })]) as never,
  )) as unknown as Json;
  t.same(web.queries, ['one'], 'the second search never reached the backend');
  const results = msg.content.filter((b: Json) => b.type === 'web_search_tool_result');
  t.equal(results.length, 2);
  t.same(results[1].content, { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' });
  t.match(msg.usage, { server_tool_use: { web_search_requests: 1 } });
  t.match(JSON.stringify(toolMessages()[1].content), /max_uses_exceeded/);
});

t.test('allowed and blocked domains filter results and fetches', async (t) => {
  oai.script({ kind: 'tool', name: 'web_search', args: '{"query":"domains"}', id: 'd1' }, { kind: 'text', text: 'ok' });
  let msg = (await client.messages.create(
    ask('q', [searchTool({ allowed_domains: ['allowed.example'] })]) as never,
  )) as unknown as Json;
  t.same(
    msg.content[1].content.map((r: Json) => r.url),
    ['https://docs.allowed.example/x'],
  );
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"domains"}', id: 'd2' },
    { kind: 'tool', name: 'web_fetch', args: '{"url":"https://blocked.example/y"}', id: 'd3' },
    { kind: 'text', text: 'ok' },
  );
  msg = (await client.messages.create(
    ask('q', [
      searchTool({ blocked_domains: ['blocked.example'] }),
      fetchTool({ blocked_domains: ['blocked.example'] }),
    ]) as never,
  )) as unknown as Json;
  t.notOk(msg.content[1].content.some((r: Json) => r.url.includes('blocked.example')));
  const fetchResult = msg.content.find((b: Json) => b.type === 'web_fetch_tool_result');
  t.same(fetchResult.content, { type: 'web_fetch_tool_error', error_code: 'url_not_allowed' });
});

t.test('web_fetch: a page as text; too big is cut; too slow is an error; requests still succeed', async (t) => {
  oai.script(
    { kind: 'tool', name: 'web_fetch', args: JSON.stringify({ url: `${web.url}/redirect` }), id: 'f1' },
    { kind: 'tool', name: 'web_fetch', args: JSON.stringify({ url: `${web.url}/big` }), id: 'f2' },
    { kind: 'tool', name: 'web_fetch', args: JSON.stringify({ url: `${web.url}/slow` }), id: 'f3' },
    { kind: 'text', text: 'Read them.' },
  );
  const msg = (await client.messages.create(ask('Read pages', [fetchTool()]) as never)) as unknown as Json;
  const results = msg.content.filter((b: Json) => b.type === 'web_fetch_tool_result');
  t.equal(results.length, 3);
  const a = results[0].content;
  t.equal(a.type, 'web_fetch_result');
  t.equal(a.url, `${web.url}/page/a`, 'the redirect was followed');
  t.equal(a.content.title, 'Page A');
  t.match(a.content.source.data, /The answer is 42 on \/page\/a\./);
  t.notMatch(a.content.source.data, /var x|color:red|<p>/, 'HTML became text');
  const big = results[1].content.content.source.data as string;
  t.ok(big.length < 4096 + 200, `cut near fetch_max_bytes (${big.length} characters)`);
  t.match(big, /page cut at 4096 bytes/);
  t.same(results[2].content, { type: 'web_fetch_tool_error', error_code: 'url_not_accessible' });
  t.match(msg.usage, { server_tool_use: { web_fetch_requests: 3 } });
  t.equal(msg.content.at(-1).text, 'Read them.');
});

t.test('a failing search backend gives the model an error result, never a failed request', async (t) => {
  web.fail = true;
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"x"}', id: 'e1' },
    { kind: 'text', text: 'Search is down.' },
  );
  const msg = (await client.messages.create(ask('q', [searchTool()]) as never)) as unknown as Json;
  t.same(msg.content[1].content, { type: 'web_search_tool_result_error', error_code: 'unavailable' });
  t.equal(msg.content[2].text, 'Search is down.');
});

t.test('the rounds are capped: the last call offers no hosted tool', async (t) => {
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"1"}', id: 'r1' },
    { kind: 'tool', name: 'web_search', args: '{"query":"2"}', id: 'r2' },
    { kind: 'tool', name: 'web_search', args: '{"query":"3"}', id: 'r3' },
    { kind: 'text', text: 'Final.' },
  );
  const msg = (await client.messages.create(ask('q', [searchTool()]) as never)) as unknown as Json;
  t.equal(oai.requests.length, 4, 'max_rounds: 4');
  t.notOk((oai.requests[3].body as Json).tools, 'no tool offered on the last round');
  t.equal(msg.content.at(-1).text, 'Final.');
});

t.test('a route that does not run hosted tools drops them with a warning, as before', async (t) => {
  oai.script({ kind: 'text', text: 'No search here.' });
  const { data, response } = await client.messages
    .create(ask('q', [searchTool()], 'claude-plain') as never)
    .withResponse();
  t.equal((data as unknown as Json).content[0].text, 'No search here.');
  t.match(response.headers.get('x-polygate-warnings'), /tools\.0: the built-in tool 'web_search' is not available/);
  t.notOk((oai.requests[0].body as Json).tools);
  t.same(web.queries, []);
});

t.test('a private address is refused when outbound.allow_private_addresses is false', async (t) => {
  const guarded = await inProcessWithEmulators(t, { upstreams: { oai: 'chat' }, models, config: hostedConfig(false) });
  const c = new Anthropic({ apiKey: TEST_KEY, baseURL: guarded.app.url, maxRetries: 0 });
  guarded.up.oai.script(
    { kind: 'tool', name: 'web_fetch', args: JSON.stringify({ url: `${web.url}/page/a` }), id: 'p1' },
    { kind: 'text', text: 'Could not read it.' },
  );
  const msg = (await c.messages.create(ask('Read', [fetchTool()]) as never)) as unknown as Json;
  t.same(msg.content[1].content, { type: 'web_fetch_tool_error', error_code: 'url_not_allowed' });
  t.same(web.fetched, [], 'nothing reached the page');
  // The search backend is the operator's and may live on the private network.
  guarded.up.oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"private backend"}', id: 'p2' },
    { kind: 'text', text: 'ok' },
  );
  const m2 = (await c.messages.create(ask('q', [searchTool()]) as never)) as unknown as Json;
  t.equal(m2.content[1].content.length, 4);
});

t.test("a call of the client's own tool after a search ends the answer with tool_use, the search shown", async (t) => {
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"time zones"}', id: 'm1' },
    { kind: 'tool', name: 'get_time', args: '{"zone":"UTC"}', id: 'm2' },
  );
  const msg = (await client.messages.create(
    ask('What time is it?', [
      searchTool(),
      {
        name: 'get_time',
        description: 'The time',
        input_schema: { type: 'object', properties: { zone: { type: 'string' } } },
      },
    ]) as never,
  )) as unknown as Json;
  t.same(
    msg.content.map((b: Json) => b.type),
    ['server_tool_use', 'web_search_tool_result', 'tool_use'],
  );
  t.equal(msg.stop_reason, 'tool_use');
  t.match(msg.content[2], { name: 'get_time', input: { zone: 'UTC' } });
});

t.test('an upstream failing on a later round ends the stream with an error event, never a hang', async (t) => {
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"x"}', id: 'x1' },
    { kind: 'error', status: 400, message: 'bad second round' },
  );
  const stream = client.messages.stream({ ...ask('q', [searchTool()]), stream: true } as never);
  const types: string[] = [];
  stream.on('streamEvent', (e) => void types.push((e as unknown as Json).content_block?.type ?? ''));
  await t.rejects(stream.finalMessage(), /bad second round|error/i);
  t.ok(types.includes('web_search_tool_result'), 'the search and its result reached the client first');
});

t.test('runs are counted per tool, backend and outcome', async (t) => {
  const text = await registry.getSingleMetricAsString('polygate_hosted_tool_runs_total');
  t.match(text, /polygate_hosted_tool_runs_total\{tool="web_search",backend="local",outcome="ok"\} \d+/);
  t.match(text, /tool="web_search",backend="local",outcome="max_uses"/);
  t.match(text, /tool="web_fetch",backend="web",outcome="truncated"/);
  t.match(text, /tool="web_fetch",backend="web",outcome="timeout"/);
  t.match(text, /tool="web_fetch",backend="web",outcome="refused"/);
  t.match(text, /tool="web_search",backend="local",outcome="error"/);
});

t.test('past max_total_ms the next call offers no hosted tool, so the model answers', async (t) => {
  // The slow page takes fetch_timeout_ms (500), longer than max_total_ms (100): whatever the machine's speed.
  const capped = await inProcessWithEmulators(t, {
    upstreams: { oai: 'chat' },
    models,
    config: {
      ...hostedConfig(true),
      hosted_tools: { search_backend: 'local', fetch_timeout_ms: 500, max_total_ms: 100 },
    },
  });
  const c = new Anthropic({ apiKey: TEST_KEY, baseURL: capped.app.url, maxRetries: 0 });
  capped.up.oai.script(
    { kind: 'tool', name: 'web_fetch', args: JSON.stringify({ url: `${web.url}/slow` }), id: 't1' },
    { kind: 'text', text: 'Out of time.' },
  );
  const msg = (await c.messages.create(ask('q', [fetchTool()]) as never)) as unknown as Json;
  t.equal(msg.content.at(-1).text, 'Out of time.');
  t.equal(capped.up.oai.requests.length, 2);
  t.notOk((capped.up.oai.requests[1].body as Json).tools, 'the second call offers no tool');
});

t.test("with run, other hosted tools keep the provider's unsupported_tools: refuse", async (t) => {
  const strict = await startInProcessApp(
    t,
    testConfig({
      ...hostedConfig(true),
      providers: {
        strict: {
          type: 'openai',
          api: 'chat_completions',
          api_key: 'sk-upstream-openai',
          base_url: oai.url,
          unsupported_tools: 'refuse',
          hosted_tools: 'run',
        },
      },
      models: { 'claude-strict': { routes: [{ provider: 'strict', model: 'gpt-upstream-1' }] } },
    }),
  );
  const c = new Anthropic({ apiKey: TEST_KEY, baseURL: strict.url, maxRetries: 0 });
  oai.script({ kind: 'tool', name: 'web_search', args: '{"query":"s"}', id: 'k1' }, { kind: 'text', text: 'ok' });
  const msg = (await c.messages.create(ask('q', [searchTool()], 'claude-strict') as never)) as unknown as Json;
  t.equal(msg.content[1].type, 'web_search_tool_result', 'web search runs');
  await t.rejects(
    c.messages.create(
      ask('q', [searchTool(), { type: 'code_execution_20250825', name: 'code_execution' }], 'claude-strict') as never,
    ),
    { status: 400, message: /tools\.1.*code_execution.*strict/ },
  );
});
