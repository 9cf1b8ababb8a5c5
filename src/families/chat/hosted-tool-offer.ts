// On a route where polygate runs web search and fetch itself (`hosted_tools: run`,
// docs/hosted-tools.md), the client's hosted web_search / web_fetch tools become function tools of
// the same meaning that the upstream's model can call; the client's settings on them (max_uses,
// domains, user location) become the runner's limits.
import type { BuiltinTool, ChatRequest, FunctionTool, HostedToolName, Tool } from '../../ir/chat-request.ts';
import type { GatewayConfig, ProviderConfig } from '../../infra/config/gateway-config.ts';
import type { HostedToolsMode } from '../../infra/config/hosted-tools-config.ts';
import type { Route } from '../../services/routing/model-router.ts';
import type { ClientToolLimits, RunnerSetup } from '../../services/hosted-tools/hosted-tool-runner.ts';
import { searchBackendOf } from '../../services/hosted-tools/search-backends.ts';

const functionTools: Record<HostedToolName, FunctionTool> = {
  web_search: {
    type: 'function',
    name: 'web_search',
    description:
      'Search the web for current information. Returns results with title, URL, date and an excerpt. ' +
      'Cite the URL of every source you use in your answer.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'The search query' } },
      required: ['query'],
    },
  },
  web_fetch: {
    type: 'function',
    name: 'web_fetch',
    description: 'Fetch a web page by its full URL (http or https) and return its text. Cite the URL when you use it.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', description: 'The URL of the page' } },
      required: ['url'],
    },
  },
};

const kindTool: Partial<Record<BuiltinTool['kind'], HostedToolName>> = {
  'web-search': 'web_search',
  'web-fetch': 'web_fetch',
};

export type HostedOffer = { request: ChatRequest; setup: RunnerSetup; names: ReadonlySet<string> };

/** The route's `hosted_tools`: the route's or model's, else the provider's, else its `unsupported_tools`. */
export function hostedToolsMode(config: GatewayConfig, route: Route): HostedToolsMode {
  // A route whose provider is not configured (echo built in) has no entry.
  const p = config.providers[route.provider] as ProviderConfig | undefined;
  return route.hostedTools ?? p?.hosted_tools ?? p?.unsupported_tools ?? 'drop';
}

/**
 * A same-format route relays the body untouched, which is right wherever that upstream runs the
 * client's hosted tools itself. Chat Completions is the exception: `web_search_options` works
 * only on OpenAI's search models, not on the compatible servers `run` is meant for, so such a
 * request translates (and runs the loop) instead.
 */
export function hostedLoopNeeded(config: GatewayConfig, route: Route, body: unknown): boolean {
  if (hostedToolsMode(config, route) !== 'run' || !config.hosted_tools.search_backend) return false;
  const b = obj(body);
  return b.web_search_options !== undefined && b.web_search_options !== null;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Messages, Responses and Chat spell the same settings a little differently. */
function limitsOf(t: BuiltinTool, defaultUses: number): ClientToolLimits {
  const o = t.options;
  const loc = obj(o.user_location);
  const country = loc.country ?? obj(loc.approximate).country;
  return {
    maxUses: typeof o.max_uses === 'number' && o.max_uses > 0 ? o.max_uses : defaultUses,
    allowedDomains: [...strings(o.allowed_domains), ...strings(obj(o.filters).allowed_domains)],
    blockedDomains: strings(o.blocked_domains),
    ...(typeof country === 'string' ? { country } : {}),
  };
}

/**
 * The request with polygate's function tools in place of the hosted ones the upstream cannot
 * carry; undefined when there is none to take over (then the policy drops or refuses as before).
 */
export function offerHostedTools(
  request: ChatRequest,
  carried: ReadonlySet<BuiltinTool['kind']>,
  config: GatewayConfig,
): HostedOffer | undefined {
  const backendName = config.hosted_tools.search_backend;
  const backend = backendName ? config.search_backends[backendName] : undefined;
  const clientNames = new Set(request.tools.flatMap((t) => (t.type === 'function' ? [t.name] : [])));
  const limits = new Map<HostedToolName, ClientToolLimits>();
  const tools: Tool[] = [];
  for (const t of request.tools) {
    const name = t.type === 'builtin' && !carried.has(t.kind) ? kindTool[t.kind] : undefined;
    // Without a search backend, or where the client has a function of that name, it stays hosted.
    const runnable = name && !clientNames.has(name) && !limits.has(name) && (name === 'web_fetch' || backend);
    if (!name || !runnable || t.type !== 'builtin') {
      tools.push(t);
      continue;
    }
    limits.set(name, limitsOf(t, config.hosted_tools.max_uses));
    tools.push(functionTools[name]);
  }
  if (limits.size === 0) return undefined;
  return {
    request: { ...request, tools },
    names: new Set(limits.keys()),
    setup: {
      tools: limits,
      ...(backend && backendName ? { backend: searchBackendOf(backendName, backend) } : {}),
      config: config.hosted_tools,
      allowPrivate: config.outbound.allow_private_addresses,
    },
  };
}
