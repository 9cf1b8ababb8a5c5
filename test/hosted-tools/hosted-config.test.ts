// The `search_backends` / `hosted_tools` config sections and the price of hosted tools (#27).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/infra/config/load-config.ts';
import { searchBackendOf } from '../../src/services/hosted-tools/search-backends.ts';
import { hostedToolsCostNano } from '../../src/services/hosted-tools/hosted-cost.ts';
import { testConfig } from '../helpers/start-gateway.ts';

const parse = (extra: Record<string, unknown>) => parseConfig(stringify(testConfig(extra)), 'test.yaml', {});

t.test('the default config names no backend: nothing runs, as before', async (t) => {
  const { config } = loadConfigFile('config/gateway.yaml', {});
  t.same(config.search_backends, {});
  t.equal(config.hosted_tools.search_backend, undefined);
  t.notOk(Object.values(config.providers).some((p) => p.hosted_tools === 'run'));
});

t.test('the example config loads and names a backend', async (t) => {
  const { config } = loadConfigFile('config/hosted-tools.example.yaml', { BRAVE_API_KEY: 'k' });
  t.equal(config.hosted_tools.search_backend, 'searx');
  t.equal(config.providers.openai.hosted_tools, 'run');
  t.match(readFileSync('config/hosted-tools.example.yaml', 'utf8'), /kind: brave/);
});

t.test('problems name their path', async (t) => {
  const problems = (extra: Record<string, unknown>): string[] => {
    try {
      parse(extra);
      return [];
    } catch (e) {
      return (e as ConfigError).problems;
    }
  };
  t.match(problems({ hosted_tools: { search_backend: 'nope' } }), [
    /\/hosted_tools\/search_backend: unknown search backend 'nope'/,
  ]);
  t.match(problems({ search_backends: { s: { kind: 'searxng' } } }), [
    /\/search_backends\/s\/url: required for kind 'searxng'/,
  ]);
  t.match(problems({ search_backends: { s: { url: 'http://x/' } } }), [
    /results: required without a kind/,
    /fields\/url: required/,
  ]);
  t.match(
    problems({ providers: { p: { type: 'openai', base_url: 'http://x', api_key: 'k', hosted_tools: 'always' } } }),
    [/\/providers\/p\/hosted_tools.*must be one of "run", "drop", "refuse"/],
  );
  t.same(
    problems({ search_backends: { b: { kind: 'brave', api_key: 'k' } }, hosted_tools: { search_backend: 'b' } }),
    [],
  );
});

t.test('a kind is data; the entry overrides it', async (t) => {
  const b = searchBackendOf('b', { kind: 'brave', api_key: 'k', fields: { snippet: 'extra_snippets' } });
  t.match(b, {
    url: 'https://api.search.brave.com/res/v1/web/search',
    method: 'GET',
    headers: { 'x-subscription-token': '{key}' },
    key: 'k',
    results: 'web.results',
    fields: { title: 'title', url: 'url', snippet: 'extra_snippets' },
  });
});

t.test('a route or model setting wins over the provider', async (t) => {
  const { config } = parse({
    providers: { p: { type: 'openai', base_url: 'http://x', api_key: 'k', hosted_tools: 'refuse' } },
    models: { m: { hosted_tools: 'drop', routes: [{ provider: 'p', hosted_tools: 'run' }, { provider: 'p' }] } },
  });
  t.equal(config.models.m.routes[0].hosted_tools, 'run');
  t.equal(config.models.m.hosted_tools, 'drop');
});

t.test('searches and fetches are priced per run', async (t) => {
  const { config } = parse({ hosted_tools: { price_per_search_usd: 0.01, price_per_fetch_usd: 0.002 } });
  t.equal(
    hostedToolsCostNano(config.hosted_tools, {
      inputTokens: 1,
      outputTokens: 1,
      webSearchRequests: 3,
      webFetchRequests: 1,
    }),
    32_000_000,
  );
  t.equal(hostedToolsCostNano(config.hosted_tools, { inputTokens: 1, outputTokens: 1 }), 0);
});
