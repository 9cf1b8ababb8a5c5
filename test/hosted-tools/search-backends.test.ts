// Search APIs as data (src/services/hosted-tools/search-backends.ts): each kind's request (method,
// parameters, key, body) and how its answer is read, against a loopback stand-in of that API's shape.
import t from 'tap';
import { runSearch } from '../../src/services/hosted-tools/run-search.ts';
import { searchBackendOf } from '../../src/services/hosted-tools/search-backends.ts';
import { startSearchWeb } from '../emulators/search-web.ts';

const web = await startSearchWeb();
t.teardown(() => web.close());
const signal = new AbortController().signal;
const none = { allowedDomains: [], blockedDomains: [] };

t.test('brave: GET with the key header, count and country; web.results read', async (t) => {
  const b = searchBackendOf('brave', { kind: 'brave', url: `${web.url}/api/brave`, api_key: 'bk' });
  const found = await runSearch(b, { ...none, query: 'q w', count: 3, country: 'DE' }, signal);
  t.same(found, [{ url: 'https://brave.example/', title: 'B', snippet: 'from brave', date: '2025-01-01' }]);
  const req = web.api.at(-1)!;
  t.equal(req.method, 'GET');
  t.equal(req.path, '/api/brave?q=q+w&count=3&country=DE');
  t.equal(req.headers['x-subscription-token'], 'bk');
});

t.test('tavily: POST JSON with a numeric count and the domain lists; empty ones left out', async (t) => {
  const b = searchBackendOf('tavily', { kind: 'tavily', url: `${web.url}/api/tavily`, api_key: 'tk' });
  const found = await runSearch(
    b,
    { allowedDomains: ['tavily.example'], blockedDomains: [], query: 'q', count: 2 },
    signal,
  );
  t.same(found, [{ url: 'https://tavily.example/', title: 'T', snippet: 'from tavily' }]);
  const req = web.api.at(-1)!;
  t.equal(req.method, 'POST');
  t.same(req.body, { query: 'q', max_results: 2, include_domains: ['tavily.example'] });
  t.equal(req.headers.authorization, 'Bearer tk');
});

t.test('a backend of its own is a few lines of data', async (t) => {
  const b = searchBackendOf('mine', {
    url: `${web.url}/api/mine`,
    method: 'POST',
    headers: { 'x-key': '{key}' },
    body: { q: '{query}', opts: { n: '{count}', lang: '{language}' } },
    api_key: 'mk',
    results: 'results',
    fields: { title: 'title', url: 'url', snippet: 'content' },
  });
  const found = await runSearch(b, { ...none, query: 'q', count: 5 }, signal);
  t.equal(found[0].url, 'https://tavily.example/');
  t.same(web.api.at(-1)!.body, { q: 'q', opts: { n: 5 } }, 'an unset placeholder drops its member');
  t.equal(web.api.at(-1)!.headers['x-key'], 'mk');
});

t.test('a backend that answers an unexpected shape fails as unavailable', async (t) => {
  const b = searchBackendOf('x', { url: `${web.url}/api/brave`, results: 'nope', fields: { url: 'url' } });
  await t.rejects(runSearch(b, { ...none, query: 'q', count: 1 }, signal), { code: 'unavailable' });
});
