// Runs the web searches and page fetches of one request for the hosted-tool loop
// (src/families/chat/hosted-tool-loop.ts), within the client's limits (max_uses, domains, user
// location) and the operator's (hosted_tools). It never throws for a tool's failure: a backend that
// fails, a page that cannot be read, a use over the limit all become an error result the model
// reads and the client sees, never a failed request (docs/hosted-tools.md).
import type { HostedCallPart, HostedResultPart, HostedToolName } from '../../ir/chat-request.ts';
import type { HostedToolsConfig } from '../../infra/config/hosted-tools-config.ts';
import { hostedToolRuns } from '../../infra/metrics/registry.ts';
import { domainAllowed, type DomainFilter } from './domain-filter.ts';
import { fetchPage, FetchFailed } from './fetch-page.ts';
import { runSearch, SearchFailed } from './run-search.ts';
import type { SearchBackendSpec } from './search-backends.ts';

/** What the client set on one hosted tool. */
export type ClientToolLimits = DomainFilter & { maxUses: number; country?: string; language?: string };

export type RunnerSetup = {
  tools: Map<HostedToolName, ClientToolLimits>;
  backend?: SearchBackendSpec;
  config: HostedToolsConfig;
  allowPrivate: boolean;
};

export type ToolCall = { id: string; tool: HostedToolName; args: string };

const MAX_QUERY = 400;
const MAX_URL = 2000;

function argsOf(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export class HostedToolRunner {
  readonly #setup: RunnerSetup;
  readonly #uses = new Map<HostedToolName, number>();
  /** Runs that reached the backend or the page, as the usage reports them. */
  searches = 0;
  fetches = 0;

  constructor(setup: RunnerSetup) {
    this.#setup = setup;
  }

  /** The call as the client sees it (id kept: the upstream's call id), its input parsed. */
  callOf(c: ToolCall): HostedCallPart {
    return { type: 'hosted-call', id: c.id, tool: c.tool, input: argsOf(c.args) };
  }

  async run(call: HostedCallPart, signal: AbortSignal): Promise<HostedResultPart> {
    const limits = this.#setup.tools.get(call.tool);
    const base = { type: 'hosted-result' as const, callId: call.id, tool: call.tool, sources: [] };
    const backend = call.tool === 'web_search' ? (this.#setup.backend?.name ?? 'none') : 'web';
    const fail = (error: string, outcome: string): HostedResultPart => {
      hostedToolRuns.inc({ tool: call.tool, backend, outcome });
      return { ...base, error };
    };
    if (!limits) return fail('invalid_input', 'error');
    const used = (this.#uses.get(call.tool) ?? 0) + 1;
    this.#uses.set(call.tool, used);
    if (used > limits.maxUses) return fail('max_uses_exceeded', 'max_uses');
    return call.tool === 'web_search'
      ? this.#search(call, limits, base, fail, backend, signal)
      : this.#fetch(call, limits, base, fail, signal);
  }

  async #search(
    call: HostedCallPart,
    limits: ClientToolLimits,
    base: HostedResultPart,
    fail: (error: string, outcome: string) => HostedResultPart,
    backendName: string,
    signal: AbortSignal,
  ): Promise<HostedResultPart> {
    const query = typeof call.input.query === 'string' ? call.input.query.trim() : '';
    if (query === '') return fail('invalid_input', 'error');
    if (query.length > MAX_QUERY) return fail('query_too_long', 'error');
    const backend = this.#setup.backend;
    if (!backend) return fail('unavailable', 'error');
    this.searches++;
    try {
      const sources = await runSearch(backend, { ...limits, query, count: this.#setup.config.max_results }, signal);
      hostedToolRuns.inc({ tool: 'web_search', backend: backendName, outcome: 'ok' });
      return { ...base, sources };
    } catch (e) {
      const code = e instanceof SearchFailed ? e.code : 'unavailable';
      return fail(code, code === 'too_many_requests' ? 'rate_limited' : 'error');
    }
  }

  async #fetch(
    call: HostedCallPart,
    limits: ClientToolLimits,
    base: HostedResultPart,
    fail: (error: string, outcome: string) => HostedResultPart,
    signal: AbortSignal,
  ): Promise<HostedResultPart> {
    const url = typeof call.input.url === 'string' ? call.input.url.trim() : '';
    if (url === '') return fail('invalid_input', 'error');
    if (url.length > MAX_URL) return fail('url_too_long', 'error');
    if (!domainAllowed(url, limits)) return fail('url_not_allowed', 'filtered');
    this.fetches++;
    const c = this.#setup.config;
    try {
      const page = await fetchPage(
        url,
        {
          maxBytes: c.fetch_max_bytes,
          timeoutMs: c.fetch_timeout_ms,
          maxChars: c.fetch_max_chars,
          allowPrivate: this.#setup.allowPrivate,
        },
        signal,
      );
      hostedToolRuns.inc({ tool: 'web_fetch', backend: 'web', outcome: page.truncated ? 'truncated' : 'ok' });
      return {
        ...base,
        sources: [{ url: page.url, ...(page.title ? { title: page.title } : {}) }],
        page: {
          url: page.url,
          text: page.text,
          ...(page.title ? { title: page.title } : {}),
          retrievedAt: new Date().toISOString(),
        },
      };
    } catch (e) {
      if (e instanceof FetchFailed) return fail(e.code, e.outcome);
      return fail('unavailable', 'error');
    }
  }
}
