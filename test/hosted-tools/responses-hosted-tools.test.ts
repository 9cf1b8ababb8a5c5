// Hosted web search run by polygate for a Responses client (Codex CLI's `web_search`) on an OpenAI
// Chat Completions upstream, end to end with the official openai SDK (docs/hosted-tools.md).
import t from 'tap';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { startSearchWeb } from '../emulators/search-web.ts';

import type { Json } from '../helpers/json.ts';

const web = await startSearchWeb();
t.teardown(() => web.close());
const { app, up } = await inProcessWithEmulators(t, {
  upstreams: { oai: 'chat' },
  models: { 'gpt-hosted': { hosted_tools: 'run', routes: [{ provider: 'oai', model: 'gpt-upstream-1' }] } },
  config: {
    outbound: { allow_private_addresses: true },
    search_backends: { local: { kind: 'searxng', url: `${web.url}/search` } },
    hosted_tools: { search_backend: 'local' },
  },
});
const oai = up.oai;
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
const pageA = `${web.url}/page/a`;

t.beforeEach(() => {
  oai.reset();
  web.queries.length = 0;
});

const script = (): void =>
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"polygate"}', id: 'call_r1' },
    { kind: 'text', text: `Polygate translates protocols, see ${pageA} for more.` },
  );
/** The question the scripted upstream answers with a web search (the request sets store and stream). */
const searchQuestion = { model: 'gpt-hosted', input: 'What is polygate?', tools: [{ type: 'web_search' as const }] };

t.test('web_search_call items and url_citation annotations', async (t) => {
  script();
  const r = (await client.responses.create({ ...searchQuestion, store: false })) as unknown as Json;
  t.same(
    r.output.map((i: Json) => i.type),
    ['web_search_call', 'message'],
  );
  t.match(r.output[0], {
    type: 'web_search_call',
    status: 'completed',
    action: { type: 'search', query: 'polygate', sources: [{ type: 'url', url: pageA }] },
  });
  t.match(r.output[0].id, /^ws_/);
  const text = r.output[1].content[0];
  const start = text.text.indexOf(pageA);
  t.same(text.annotations, [
    { type: 'url_citation', start_index: start, end_index: start + pageA.length, title: 'Polygate A', url: pageA },
  ]);
  t.equal(r.output_text, `Polygate translates protocols, see ${pageA} for more.`);
  t.same(web.queries, ['polygate']);
});

t.test('streamed: the search call shows before its results and the answer', async (t) => {
  script();
  const stream = await client.responses.create({ ...searchQuestion, store: false, stream: true });
  const types: string[] = [];
  let final: Json | undefined;
  for await (const e of stream as AsyncIterable<Json>) {
    types.push(e.type);
    if (e.type === 'response.completed') final = e.response;
  }
  const order = [
    'response.web_search_call.in_progress',
    'response.web_search_call.searching',
    'response.web_search_call.completed',
    'response.output_text.delta',
    'response.output_text.annotation.added',
    'response.completed',
  ].map((x) => types.indexOf(x));
  t.ok(
    order.every((x, i) => x >= 0 && (i === 0 || x > order[i - 1])),
    `events in order: ${types.join(', ')}`,
  );
  t.same(
    final!.output.map((i: Json) => i.type),
    ['web_search_call', 'message'],
  );
  t.match(final!.output[1].content[0].annotations, [{ type: 'url_citation', url: pageA }]);
});

t.test('a web_search_call sent back is read as text by the upstream', async (t) => {
  oai.script({ kind: 'text', text: 'Again.' });
  await client.responses.create({
    model: 'gpt-hosted',
    store: false,
    input: [
      { role: 'user', content: 'What is polygate?' },
      {
        type: 'web_search_call',
        id: 'ws_1',
        status: 'completed',
        action: { type: 'search', query: 'polygate', sources: [{ type: 'url', url: pageA }] },
      } as never,
      { role: 'assistant', content: 'It translates.' },
      { role: 'user', content: 'Again?' },
    ],
  });
  const sent = JSON.stringify((oai.requests[0].body as Json).messages);
  t.match(sent, /web_search/);
  t.match(sent, new RegExp(pageA.replace(/[/.]/g, '\\$&')));
});

t.test("Codex CLI's own request (its stored body, model renamed) gets its search run", async (t) => {
  const fixture = JSON.parse(readFileSync('test/clients/fixtures/codex/1.json', 'utf8')) as Json;
  const raw = JSON.stringify({ ...fixture.body, model: 'gpt-hosted' });
  script();
  const res = await fetch(`${app.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: raw,
  });
  t.equal(res.status, 200);
  const events = (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Json);
  const done = events.find((e) => e.type === 'response.completed');
  t.match(
    done?.response.output.map((i: Json) => i.type),
    ['web_search_call', 'message'],
  );
  t.match(done?.response.output[0].action, { type: 'search', query: 'polygate' });
  const upstreamTools = ((oai.requests[0].body as Json).tools as Json[]).map((x) => x.function.name);
  t.ok(upstreamTools.includes('web_search'), 'Codex web_search became a function tool upstream');
  t.same(web.queries, ['polygate']);
});

t.test('a stored response keeps its search: the next turn by previous_response_id sends it as text', async (t) => {
  script();
  const first = await client.responses.create({ ...searchQuestion, store: true, stream: true });
  let id = '';
  for await (const e of first as AsyncIterable<Json>) if (e.type === 'response.completed') id = e.response.id;
  t.ok(id);
  oai.reset();
  oai.script({ kind: 'text', text: 'Still true.' });
  const second = await client.responses.create({ model: 'gpt-hosted', input: 'Sure?', previous_response_id: id });
  t.equal(second.output_text, 'Still true.');
  const sent = JSON.stringify((oai.requests[0].body as Json).messages);
  t.match(sent, /\[web_search result\]/);
  t.match(sent, /Polygate translates protocols\./, 'the excerpt the search found');
});
