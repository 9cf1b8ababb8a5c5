// Every metric polygate exports, defined in this one file on one registry (docs/architecture.md).
// The ones every request updates are cell metrics (src/infra/metrics/cell-metrics.ts: no hashing
// or garbage per update); the rest are prom-client's own classes.
// Labels are bounded: families, formats, provider and key ids come from code or the config,
// never from request content.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from './cell-metrics.ts';
import { formats } from '../formats/formats.ts';
import { taskActions } from '../../ir/music-task.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'polygate_' });

const pathLabels = ['family', 'inbound_format', 'upstream_format', 'provider', 'mode', 'outcome'] as const;

export const requestsTotal = new CellCounter({
  name: 'polygate_requests_total',
  help: 'Client requests by translation path and outcome',
  labelNames: pathLabels,
  registers: [registry],
});

export const requestDuration = new CellHistogram({
  name: 'polygate_request_duration_seconds',
  help: 'Whole request time as the client sees it, streams until their last byte',
  labelNames: pathLabels,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

export const upstreamDuration = new CellHistogram({
  name: 'polygate_upstream_duration_seconds',
  help: 'Time from sending the upstream request to its response headers',
  labelNames: ['provider', 'upstream_format', 'outcome'],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const translationWarnings = new Counter({
  name: 'polygate_translation_warnings_total',
  help: 'Request fields dropped because the routed upstream cannot carry them',
  labelNames: ['inbound_format', 'upstream_format', 'field'],
  registers: [registry],
});

export const tokensTotal = new CellCounter({
  name: 'polygate_tokens_total',
  help: 'Tokens reported by upstreams (kind: input, output, reasoning, cache_read, cache_write), by family, provider and client-facing model',
  labelNames: ['family', 'provider', 'model', 'kind'],
  registers: [registry],
});

export const inFlight = new CellCounter({
  type: 'gauge',
  name: 'polygate_in_flight_requests',
  help: 'Requests being served now',
  labelNames: ['family'],
  registers: [registry],
});

export const openStreams = new CellCounter({
  type: 'gauge',
  name: 'polygate_open_streams',
  help: 'Event streams being written to clients now',
  labelNames: ['family'],
  registers: [registry],
});

export const fallbacksTotal = new Counter({
  name: 'polygate_fallbacks_total',
  help: 'Routes abandoned for the next one, by the cause',
  labelNames: ['provider', 'cause'],
  registers: [registry],
});

// Streams and translation, per translation path (outcome is on the request metrics).
const streamLabels = ['family', 'inbound_format', 'upstream_format', 'provider', 'mode'] as const;

export const timeToFirstByte = new CellHistogram({
  name: 'polygate_time_to_first_byte_seconds',
  help: 'Time from a request arriving to the first body byte of its event stream leaving for the client',
  labelNames: streamLabels,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const streamChunksTotal = new CellCounter({
  name: 'polygate_stream_chunks_total',
  help: 'Chunks written to client event streams (one socket write each; a translated chunk holds the frames of one IR event)',
  labelNames: streamLabels,
  registers: [registry],
});

export const translationDuration = new CellHistogram({
  name: 'polygate_translation_duration_seconds',
  help: 'Time polygate spends translating, apart from upstream time: decode (client request to the IR), encode (the IR answer to the client format, summed over a stream)',
  labelNames: [...streamLabels, 'direction'],
  buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
  registers: [registry],
});

// Upstream health. Retries, the breaker and rate limits are driven by the resilience code; their
// label vocabularies are exported so that code and the zero series below agree.
export const retryCauses = ['timeout', 'connection', 'rate_limited', 'server_error'] as const;
export const breakerStates = { closed: 0, half_open: 1, open: 2 } as const;
export const limitKinds = ['rpm', 'tpm', 'concurrency'] as const;

export const retriesTotal = new Counter({
  name: 'polygate_upstream_retries_total',
  help: 'Upstream calls repeated on the same route, by cause (timeout, connection, rate_limited, server_error)',
  labelNames: ['provider', 'cause'],
  registers: [registry],
});

export const breakerState = new Gauge({
  name: 'polygate_circuit_breaker_state',
  help: 'Circuit breaker per upstream provider: 0 closed (calls flow), 1 half-open (probing), 2 open (calls skipped)',
  labelNames: ['provider'],
  registers: [registry],
});

export const rateLimitedTotal = new Counter({
  name: 'polygate_rate_limited_requests_total',
  help: 'Requests refused with 429 by a key limit (limit: rpm, tpm, concurrency), by key id',
  labelNames: ['key', 'limit'],
  registers: [registry],
});

export const configReloadsTotal = new Counter({
  name: 'polygate_config_reloads_total',
  help: 'Config reloads by outcome (ok: the new config is in force, error: rejected, the old one stays)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const breakerRouteState = new Gauge({
  name: 'polygate_circuit_breaker_route_state',
  help: 'Circuit breaker per provider and upstream model (a config-bounded name): 0 closed, 1 half-open, 2 open',
  labelNames: ['provider', 'upstream_model'],
  registers: [registry],
});

export const upstreamAttempts = new CellHistogram({
  name: 'polygate_upstream_attempts',
  help: 'Upstream calls one request made (retries and fallbacks included), by family and final outcome (ok, or the cause of the last failure: timeout, connection, rate_limited, server_error, breaker_open, or the error kind)',
  labelNames: ['family', 'outcome'],
  buckets: [1, 2, 3, 4, 6, 8, 12],
  registers: [registry],
});

export const providerEnabled = new Gauge({
  name: 'polygate_provider_enabled',
  help: 'Configured providers: 1 enabled, 0 disabled (a key variable is unset or the type is not served)',
  labelNames: ['provider', 'type'],
  registers: [registry],
});

/** Provider types reached over the network (the formats' upstreams, src/infra/formats/formats.ts): the ones retries and the breaker apply to. */
const remoteTypes = new Set(formats.flatMap((f) => f.providers.map((p) => p.type)));
/** What priming reads of a runtime (src/services/runtime/runtime.ts): its config and the providers it disabled. */
type Primable = { config: GatewayConfig; disabled: ReadonlyMap<string, string> };
const primed = new WeakSet<Primable>();

/**
 * Creates at zero every series whose label set the config already names, so each dashboard panel
 * has a series from the first scrape: a counter that never moved reads 0 rather than "no data",
 * and rate() sees its first increase. Runs on scrape, once per runtime (a reload may name new
 * providers and keys); `inc(…, 0)` leaves a value that is already there untouched.
 */
export function primeMetrics(runtime: Primable): void {
  if (primed.has(runtime)) return;
  primed.add(runtime);
  const { config } = runtime;
  for (const { metricLabel: family } of formats) {
    inFlight.inc({ family }, 0);
    openStreams.inc({ family }, 0);
  }
  providerEnabled.reset();
  for (const [provider, p] of Object.entries(config.providers)) {
    providerEnabled.set({ provider, type: p.type }, runtime.disabled.has(provider) ? 0 : 1);
    if (remoteTypes.has(p.type)) {
      breakerState.inc({ provider }, 0);
      for (const cause of retryCauses) retriesTotal.inc({ provider, cause }, 0);
    }
    if (p.type === 'tune' || p.type === 'sandbox-tune') {
      for (const action of taskActions)
        for (const status of ['IN_PROGRESS', 'SUCCESS', 'FAIL']) tasksTotal.inc({ provider, action, status }, 0);
      for (const outcome of ['ok', 'error']) upstreamPollsTotal.inc({ provider, outcome }, 0);
    }
    if (p.type === 'local-speech') {
      for (const direction of ['in', 'out']) audioSecondsTotal.inc({ provider, direction }, 0);
      speechCharactersTotal.inc({ provider }, 0);
    }
  }
  for (const key of config.keys) for (const limit of limitKinds) rateLimitedTotal.inc({ key: key.id, limit }, 0);
  for (const outcome of ['ok', 'error']) configReloadsTotal.inc({ outcome }, 0);
  primeUsageMetrics(config);
  for (const outcome of ['delivered', 'http_error', 'network_error', 'refused', 'abandoned'])
    callbackDeliveriesTotal.inc({ outcome }, 0);
}

// Music tasks, the `tune` format (src/families/tune/).
export const tasksTotal = new Counter({
  name: 'polygate_tasks_total',
  help: 'Music and lyrics tasks by the state they reached: IN_PROGRESS when submitted, then SUCCESS or FAIL',
  labelNames: ['provider', 'action', 'status'],
  registers: [registry],
});

export const callbackDeliveriesTotal = new Counter({
  name: 'polygate_callback_deliveries_total',
  help: 'notify_hook delivery attempts by outcome (delivered, http_error, network_error, refused) and deliveries given up (abandoned)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const upstreamPollsTotal = new Counter({
  name: 'polygate_upstream_polls_total',
  help: 'Batched task queries sent to music providers, by outcome',
  labelNames: ['provider', 'outcome'],
  registers: [registry],
});

// Speech (`openai-audio`): audio volume and synthesized text, per provider.
export const audioSecondsTotal = new Counter({
  name: 'polygate_audio_seconds_total',
  help: 'Seconds of audio by provider and direction (in: uploaded for recognition, out: synthesized)',
  labelNames: ['provider', 'direction'],
  registers: [registry],
});

export const speechCharactersTotal = new Counter({
  name: 'polygate_speech_characters_total',
  help: 'Characters of text synthesized into speech, by provider',
  labelNames: ['provider'],
  registers: [registry],
});

// Usage ledger and budgets (src/services/usage/). Key ids, model and provider names are bounded by the config
// (and by the operator for runtime keys); a budget label is `usd_per_<period>` or `tokens_per_<period>`.

export const spendTotal = new CellCounter({
  name: 'polygate_spend_usd_total',
  help: 'What requests cost by the configured prices (usage.prices), in USD, by key id, client-facing model and provider',
  labelNames: ['key', 'model', 'provider'],
  registers: [registry],
});

export const unpricedRequestsTotal = new Counter({
  name: 'polygate_unpriced_requests_total',
  help: 'Requests to a model with no price in usage.prices (they cost 0 in the ledger), by client-facing model',
  labelNames: ['model'],
  registers: [registry],
});

export const budgetUsedRatio = new Gauge({
  name: 'polygate_budget_used_ratio',
  help: 'Share of a budget used in its current window (1 = exhausted), as last checked by this instance, by scope (key, workspace, provider), its id and budget (usd_per_day, tokens_per_week, ...)',
  labelNames: ['scope', 'id', 'budget'],
  registers: [registry],
});

export const budgetRejectionsTotal = new Counter({
  name: 'polygate_budget_rejections_total',
  help: 'Requests refused with 429 (or routes skipped, scope provider) because a budget is used up, by scope, id and budget',
  labelNames: ['scope', 'id', 'budget'],
  registers: [registry],
});

export const budgetWebhooksTotal = new Counter({
  name: 'polygate_budget_webhooks_total',
  help: 'Soft-limit webhooks (usage.budget_webhook) by what became of them: delivered, refused by the SSRF guard, or abandoned after the last attempt',
  labelNames: ['outcome'],
  registers: [registry],
});

export const ledgerRecordsTotal = new Counter({
  name: 'polygate_ledger_records_total',
  help: 'Usage records by what became of them (written to the store, or dropped because the store could not take them for too long)',
  labelNames: ['outcome'],
  registers: [registry],
});

/**
 * The spend and unpriced series too: a counter whose series first appears at its first increment
 * has no earlier sample, so `increase()` over a short burst read $0 (keys that spent $0.131 read
 * $0, issue #23). Spend is primed for every key and every model entry and route provider with a
 * price (the labels record-usage.ts gives it: entry, provider), unpriced for every entry with a
 * route without one: sets the config bounds.
 */
function primeUsageMetrics(config: GatewayConfig): void {
  for (const outcome of ['written', 'dropped']) ledgerRecordsTotal.inc({ outcome }, 0);
  const prices = config.usage.prices;
  for (const [model, m] of Object.entries(config.models)) {
    for (const route of m.routes) {
      // As src/services/usage/prices.ts priceOf chooses: the model's own price, else the route's
      // upstream model's (a route without one passes the client's name on: any may be priced).
      const byProvider = prices.providers[route.provider];
      const priced =
        prices.models[model] !== undefined ||
        (route.model === undefined ? byProvider !== undefined : byProvider?.[route.model] !== undefined);
      if (priced) for (const key of config.keys) spendTotal.inc({ key: key.id, model, provider: route.provider }, 0);
      if (!prices.models[model] && (route.model === undefined || byProvider?.[route.model] === undefined))
        unpricedRequestsTotal.inc({ model }, 0);
    }
  }
  for (const [scope, specs] of [
    ['key', config.usage.budgets],
    ['workspace', config.usage.workspace_budgets],
    ['provider', config.usage.provider_budgets],
  ] as const)
    for (const [id, spec] of Object.entries(specs))
      for (const l of spec.limits)
        for (const [amount, on] of [
          ['usd', l.usd],
          ['tokens', l.tokens],
        ] as const) {
          if (!on) continue;
          const budget = `${amount}_per_${l.period}`;
          budgetRejectionsTotal.inc({ scope, id, budget }, 0);
          budgetUsedRatio.inc({ scope, id, budget }, 0);
        }
  for (const outcome of ['delivered', 'refused', 'abandoned']) budgetWebhooksTotal.inc({ outcome }, 0);
}

/** Responses over WebSocket (src/families/responses/serve-responses-sockets.ts): each response also counts as a request above. */
export const responsesSocketsOpen = new Gauge({
  name: 'polygate_responses_websockets_open',
  help: 'Responses WebSocket connections open now',
  registers: [registry],
});

/** What the Responses WebSockets hold together, read when scraped (src/services/sessions/socket-memory.ts). */
let responsesSocketBytes: () => number = () => 0;
export const setResponsesSocketBytes = (read: () => number): void => {
  responsesSocketBytes = read;
};
new Gauge({
  name: 'polygate_responses_websocket_held_bytes',
  help: 'Bytes all Responses WebSockets hold: remembered responses, prepared turns, queued and running messages (bounded by responses_websocket.max_total_bytes)',
  registers: [registry],
  collect() {
    this.set(responsesSocketBytes());
  },
});

export const responsesSocketMessages = new Counter({
  name: 'polygate_responses_websocket_messages_total',
  help: 'Responses WebSocket messages by direction (in: from clients, out: to clients)',
  labelNames: ['direction'],
  registers: [registry],
});

export const responsesSocketResponses = new Counter({
  name: 'polygate_responses_websocket_responses_total',
  help: 'response.create events served over a Responses WebSocket (each is also one request in polygate_requests_total)',
  registers: [registry],
});

/** Web search and fetch polygate runs itself (src/services/hosted-tools/); backend names come from the config. */
export const hostedToolRuns = new Counter({
  name: 'polygate_hosted_tool_runs_total',
  help: 'Hosted web_search / web_fetch runs by polygate, by tool, search backend (fetch: "web") and outcome (ok, error, timeout, too_large, refused, filtered, max_uses)',
  labelNames: ['tool', 'backend', 'outcome'],
  registers: [registry],
});

export const hostedToolRounds = new Counter({
  name: 'polygate_hosted_tool_rounds_total',
  help: 'Upstream calls made by the hosted-tool loop after the first (each feeds tool results back)',
  registers: [registry],
});
