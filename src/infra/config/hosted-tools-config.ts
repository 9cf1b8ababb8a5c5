// The `search_backends` and `hosted_tools` sections (docs/hosted-tools.md): the search APIs
// polygate can call, and the limits of the web search and fetch it runs itself where the routed
// upstream has no such tool.

/** `run`: polygate runs web_search / web_fetch; `drop` / `refuse`: as any hosted tool (docs/open-world.md). */
export type HostedToolsMode = 'run' | 'drop' | 'refuse';

/** One search API as data; a `kind` fills in what is not given (src/services/hosted-tools/search-backends.ts). */
export type SearchBackendConfig = {
  kind?: 'searxng' | 'brave' | 'tavily' | 'exa';
  url?: string;
  api_key?: string;
  method?: 'GET' | 'POST';
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
  results?: string;
  fields?: { title?: string; url?: string; snippet?: string; date?: string };
  timeout_ms?: number;
};

export type HostedToolsConfig = {
  search_backend?: string;
  max_rounds: number;
  max_total_ms: number;
  max_results: number;
  max_uses: number;
  fetch_max_bytes: number;
  fetch_timeout_ms: number;
  fetch_max_chars: number;
  price_per_search_usd: number;
  price_per_fetch_usd: number;
};

export function hostedToolsDefaults(c: Partial<HostedToolsConfig> | undefined): HostedToolsConfig {
  return {
    ...(c?.search_backend ? { search_backend: c.search_backend } : {}),
    max_rounds: c?.max_rounds ?? 8,
    max_total_ms: c?.max_total_ms ?? 120_000,
    max_results: c?.max_results ?? 5,
    max_uses: c?.max_uses ?? 10,
    fetch_max_bytes: c?.fetch_max_bytes ?? 2 * 1024 * 1024,
    fetch_timeout_ms: c?.fetch_timeout_ms ?? 15_000,
    fetch_max_chars: c?.fetch_max_chars ?? 100_000,
    price_per_search_usd: c?.price_per_search_usd ?? 0,
    price_per_fetch_usd: c?.price_per_fetch_usd ?? 0,
  };
}

/** Which kinds need no url, and which fields a backend without a kind must name. */
const hostedKinds = new Set(['brave', 'tavily', 'exa']);

export function hostedToolsProblems(c: {
  hosted_tools: HostedToolsConfig;
  search_backends: Record<string, SearchBackendConfig>;
}): string[] {
  const problems: string[] = [];
  const name = c.hosted_tools.search_backend;
  if (name !== undefined && !Object.hasOwn(c.search_backends, name))
    problems.push(`/hosted_tools/search_backend: unknown search backend '${name}'`);
  for (const [n, b] of Object.entries(c.search_backends)) {
    if (!b.url && !(b.kind && hostedKinds.has(b.kind)))
      problems.push(`/search_backends/${n}/url: required${b.kind ? ` for kind '${b.kind}'` : ''}`);
    if (!b.kind && !b.results) problems.push(`/search_backends/${n}/results: required without a kind`);
    if (!b.kind && !b.fields?.url) problems.push(`/search_backends/${n}/fields/url: required without a kind`);
  }
  return problems;
}
