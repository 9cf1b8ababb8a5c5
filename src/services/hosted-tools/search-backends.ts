// Search APIs as data: a kind (SearXNG's JSON API, Brave Search, Tavily, Exa) is a request
// template and the paths of the results in its answer, so a new API is a few lines here or in
// the config (`search_backends`, docs/hosted-tools.md).
import type { SearchBackendConfig } from '../../infra/config/hosted-tools-config.ts';

/** A backend with everything filled in. */
export type SearchBackendSpec = {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: Record<string, unknown>;
  results: string;
  fields: { title?: string; url: string; snippet?: string; date?: string };
  key: string;
  timeoutMs: number;
};

type Preset = Omit<SearchBackendSpec, 'name' | 'key' | 'timeoutMs' | 'url'> & { url?: string };

export const searchPresets: Record<NonNullable<SearchBackendConfig['kind']>, Preset> = {
  // https://docs.searxng.org/dev/search_api.html (the instance must allow `format: json`)
  searxng: {
    method: 'GET',
    query: { q: '{query}', format: 'json', language: '{language}' },
    headers: { accept: 'application/json' },
    results: 'results',
    fields: { title: 'title', url: 'url', snippet: 'content', date: 'publishedDate' },
  },
  // https://api-dashboard.search.brave.com/app/documentation/web-search/get-started
  brave: {
    url: 'https://api.search.brave.com/res/v1/web/search',
    method: 'GET',
    query: { q: '{query}', count: '{count}', country: '{country}' },
    headers: { accept: 'application/json', 'x-subscription-token': '{key}' },
    results: 'web.results',
    fields: { title: 'title', url: 'url', snippet: 'description', date: 'page_age' },
  },
  // https://docs.tavily.com/documentation/api-reference/endpoint/search
  tavily: {
    url: 'https://api.tavily.com/search',
    method: 'POST',
    query: {},
    headers: { authorization: 'Bearer {key}' },
    body: {
      query: '{query}',
      max_results: '{count}',
      include_domains: '{allowed_domains}',
      exclude_domains: '{blocked_domains}',
    },
    results: 'results',
    fields: { title: 'title', url: 'url', snippet: 'content', date: 'published_date' },
  },
  // https://docs.exa.ai/reference/search
  exa: {
    url: 'https://api.exa.ai/search',
    method: 'POST',
    query: {},
    headers: { 'x-api-key': '{key}' },
    body: {
      query: '{query}',
      numResults: '{count}',
      includeDomains: '{allowed_domains}',
      excludeDomains: '{blocked_domains}',
      contents: { highlights: true },
    },
    results: 'results',
    fields: { title: 'title', url: 'url', snippet: 'highlights', date: 'publishedDate' },
  },
};

/** The backend a config entry names: its kind's preset with the entry's own fields over it. */
export function searchBackendOf(name: string, c: SearchBackendConfig): SearchBackendSpec {
  const preset: Partial<Preset> = c.kind ? searchPresets[c.kind] : {};
  return {
    name,
    url: c.url ?? preset.url ?? '',
    method: c.method ?? preset.method ?? 'GET',
    query: c.query ?? preset.query ?? {},
    headers: { ...preset.headers, ...c.headers },
    ...((c.body ?? preset.body) ? { body: c.body ?? preset.body } : {}),
    results: c.results ?? preset.results ?? 'results',
    fields: { ...preset.fields, ...c.fields, url: c.fields?.url ?? preset.fields?.url ?? 'url' },
    key: c.api_key ?? '',
    timeoutMs: c.timeout_ms ?? 10_000,
  };
}
