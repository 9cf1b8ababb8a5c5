// Hosted web search run by polygate for Gemini clients (`googleSearch`, shown as groundingMetadata)
// and Chat Completions clients (`web_search_options`, shown as url_citation annotations), on an
// OpenAI Chat Completions upstream, with the official SDKs (docs/hosted-tools.md).
import t from 'tap';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { startSearchWeb } from '../emulators/search-web.ts';

import type { Json } from '../helpers/json.ts';

const web = await startSearchWeb();
t.teardown(() => web.close());
const { app, up } = await inProcessWithEmulators(t, {
  upstreams: { oai: 'chat' },
  providers: {},
  models: { 'hosted-model': { routes: [{ provider: 'oai', model: 'gpt-upstream-1', hosted_tools: 'run' }] } },
  config: {
    outbound: { allow_private_addresses: true },
    search_backends: { local: { kind: 'searxng', url: `${web.url}/search` } },
    hosted_tools: { search_backend: 'local' },
  },
});
const oai = up.oai;
const pageA = `${web.url}/page/a`;
const script = (): void =>
  oai.script(
    { kind: 'tool', name: 'web_search', args: '{"query":"polygate"}', id: 'call_g1' },
    { kind: 'text', text: `Polygate translates protocols (${pageA}).` },
  );
t.beforeEach(() => oai.reset());

const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: app.url } });

t.test('Gemini: googleSearch grounding, not streamed and streamed', async (t) => {
  script();
  const r = await ai.models.generateContent({
    model: 'hosted-model',
    contents: 'What is polygate?',
    config: { tools: [{ googleSearch: {} }] },
  });
  t.equal(r.text, `Polygate translates protocols (${pageA}).`);
  const g = r.candidates![0].groundingMetadata as Json;
  t.same(g.webSearchQueries, ['polygate']);
  t.match(g.groundingChunks[0], { web: { uri: pageA, title: 'Polygate A' } });
  t.equal(g.groundingChunks.length, 4);

  script();
  let text = '';
  let grounding: Json | undefined;
  for await (const c of await ai.models.generateContentStream({
    model: 'hosted-model',
    contents: 'What is polygate?',
    config: { tools: [{ googleSearch: {} }] },
  })) {
    text += c.text ?? '';
    grounding ??= c.candidates?.[0]?.groundingMetadata as Json | undefined;
  }
  t.equal(text, `Polygate translates protocols (${pageA}).`);
  t.same(grounding?.webSearchQueries, ['polygate']);
});

t.test('Chat Completions: web_search_options, annotations on the answer', async (t) => {
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
  script();
  const r = await client.chat.completions.create({
    model: 'hosted-model',
    messages: [{ role: 'user', content: 'What is polygate?' }],
    web_search_options: {},
  });
  const m = r.choices[0].message as unknown as Json;
  t.equal(m.content, `Polygate translates protocols (${pageA}).`);
  const start = m.content.indexOf(pageA);
  t.match(m.annotations, [
    { type: 'url_citation', url_citation: { url: pageA, start_index: start, end_index: start + pageA.length } },
  ]);
  t.match((oai.requests[0].body as Json).tools, [{ function: { name: 'web_search' } }]);

  script();
  const stream = await client.chat.completions.create({
    model: 'hosted-model',
    messages: [{ role: 'user', content: 'What is polygate?' }],
    web_search_options: {},
    stream: true,
  });
  let content = '';
  const annotations: Json[] = [];
  for await (const c of stream) {
    const d = c.choices[0]?.delta as Json | undefined;
    content += d?.content ?? '';
    annotations.push(...(d?.annotations ?? []));
  }
  t.equal(content, `Polygate translates protocols (${pageA}).`);
  t.match(annotations, [{ type: 'url_citation', url_citation: { url: pageA } }]);
});
