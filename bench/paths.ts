// What the benchmark measures: one line per gateway path. A path whose adapter has not landed yet
// stays listed; the runner probes it once and reports it as "not served" instead of failing, so
// the table grows by itself as adapters land.
import type { WireFormat } from './wire-requests.ts';

export type Upstream = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'azure-openai' | 'echo';

/** `inbound`: the format the client speaks to polygate; `upstream`: the provider it is routed to. */
export type BenchPath = { name: string; inbound: WireFormat; upstream: Upstream };

export const benchPaths: BenchPath[] = [
  { name: 'E → anthropic (pass-through)', inbound: 'messages', upstream: 'anthropic' },
  { name: 'E → openai-chat (translate)', inbound: 'messages', upstream: 'openai-chat' },
  { name: 'E → echo', inbound: 'messages', upstream: 'echo' },
  { name: 'chat → openai-chat (pass-through)', inbound: 'chat', upstream: 'openai-chat' },
  { name: 'chat → anthropic (translate)', inbound: 'chat', upstream: 'anthropic' },
  { name: 'D → anthropic (translate)', inbound: 'responses', upstream: 'anthropic' },
  { name: 'C → openai-chat (translate)', inbound: 'gemini', upstream: 'openai-chat' },
  { name: 'chat → gemini (translate)', inbound: 'chat', upstream: 'gemini' },
  // A cloud upstream kind (issue #26): Chat Completions under Azure's deployment path and api-key.
  { name: 'E → azure-openai chat (translate)', inbound: 'messages', upstream: 'azure-openai' },
];

/** The format each upstream speaks; `echo` has none, its baseline is the client's own format. */
export const upstreamFormat: Record<Exclude<Upstream, 'echo'>, WireFormat> = {
  anthropic: 'messages',
  'openai-chat': 'chat',
  'openai-responses': 'responses',
  gemini: 'gemini',
  'azure-openai': 'chat',
};

/** The "direct" baseline of a path: the same load straight at the mock, in the upstream's format. */
export const baselineFormat = (p: BenchPath): WireFormat =>
  p.upstream === 'echo' ? p.inbound : upstreamFormat[p.upstream];

export const modelFor = (u: Upstream): string => `bench-${u}`;

export const BENCH_KEY = 'sk-polygate-bench';
export const MOCK_KEY = 'sk-mock-upstream';

/**
 * BENCH_OPERATOR=0: the bare config of earlier runs (memory store, no key limits, no prices, the
 * request log to /dev/null). By default polygate runs as an operator runs it (operatorFeatures).
 */
export const operator = process.env.BENCH_OPERATOR !== '0';

/** What `operator` turns on, as the report states it. */
export const operatorFeatures = operator
  ? 'request log at info to a file in a temporary folder; metrics (always on); the bench key with rpm, tpm and concurrency limits (set far above the load, never tripped); the usage ledger on a sqlite store in a temporary folder, every bench model priced (cost computed per request); no tracing, no budgets'
  : 'BENCH_OPERATOR=0: memory store, no key limits, no prices (ledger on the memory store), request log to /dev/null; metrics (always on)';

/**
 * A polygate config with every upstream type pointed at the mock and one model per upstream.
 * The sqlite file is `${POLYGATE_DB}`, which startPolygate sets to a fresh temporary folder per
 * process, so two gateways of one run (A/B) never share a store.
 */
export function polygateConfig(mockUrl: string, listen: Record<string, unknown> = {}): Record<string, unknown> {
  const upstream = (model: string, provider: string): Record<string, unknown> => ({ routes: [{ provider, model }] });
  const models = {
    [modelFor('anthropic')]: upstream('claude-bench', 'anthropic'),
    [modelFor('openai-chat')]: upstream('gpt-bench', 'openai'),
    [modelFor('openai-responses')]: upstream('gpt-bench', 'openai-responses'),
    [modelFor('gemini')]: upstream('gemini-bench', 'gemini'),
    // The route's model is the Azure deployment, named in the path.
    [modelFor('azure-openai')]: upstream('gpt-bench', 'azure-openai'),
    [modelFor('echo')]: upstream('echo', 'echo'),
  };
  // Far above anything one core serves (~10,000 req/s, ~300 tokens a request), so never tripped: what is measured is their bookkeeping.
  const limits = { rpm: 100_000_000, tpm: 100_000_000_000, concurrency: 1_000_000 };
  return {
    listen: { host: '127.0.0.1', port: 0, ...listen },
    storage: operator ? { driver: 'sqlite', path: '${POLYGATE_DB}' } : { driver: 'memory' },
    keys: [{ id: 'bench', secret: BENCH_KEY, workspace: 'bench', models: ['*'], ...(operator ? { limits } : {}) }],
    providers: {
      anthropic: { type: 'anthropic', base_url: mockUrl, api_key: MOCK_KEY },
      openai: { type: 'openai', base_url: `${mockUrl}/v1`, api_key: MOCK_KEY, api: 'chat_completions' },
      'openai-responses': { type: 'openai', base_url: `${mockUrl}/v1`, api_key: MOCK_KEY, api: 'responses' },
      gemini: { type: 'gemini', base_url: mockUrl, api_key: MOCK_KEY },
      'azure-openai': {
        type: 'azure-openai',
        base_url: mockUrl,
        api_key: MOCK_KEY,
        api: 'chat_completions',
        api_version: '2024-10-21',
      },
      echo: { type: 'echo' },
    },
    models,
    ...(operator
      ? {
          usage: {
            ledger: true,
            prices: {
              models: Object.fromEntries(
                Object.keys(models).map((m) => [m, { input: 3, output: 15, cache_read: 0.3 }]),
              ),
            },
          },
        }
      : {}),
  };
}
