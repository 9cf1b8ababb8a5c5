import type { ChatState } from '../services/runtime/request-state.ts';
import { spendTotal, unpricedRequestsTotal } from '../infra/metrics/registry.ts';
import { meteredOf, type Metered } from '../services/usage/meter.ts';
import { nanoPerUsd, priceOf, recordCostNano } from '../services/usage/prices.ts';
import { hostedToolsCostNano } from '../services/hosted-tools/hosted-cost.ts';
import { dayOf, type UsageRecord } from '../services/usage/usage-record.ts';
import { reservationOf } from '../services/access/budgets.ts';
import { recordBuilt, requestLogFields } from './request-log-entry.ts';

/** Requests whose record was written before their last byte (`commitUsage`): not recorded again at close. */
const committed = new WeakSet<object>();

/** The request's translation path as the app's request scope labels it. */
export type PathLabels = {
  family: string;
  inbound_format: string;
  upstream_format: string;
  provider: string;
  mode: string;
  outcome: string;
};

/** What a record is built from a turn after the response ended: one object per request, and one shared builder. */
type Ended = {
  state: ChatState;
  labels: PathLabels;
  status: number;
  model: string;
  entry: string;
  metered: Metered | undefined;
  audioSeconds: number | undefined;
};

/**
 * Called once when a response has ended (src/app/app.ts): prices the request, counts the spend
 * metric and queues the ledger record. Requests that named no model of this config (bad input,
 * unknown model, reads of stored objects) are not recorded: they used nothing. A name a glob entry
 * matched is recorded as sent, but priced and labelled in metrics by its entry (`claude-*`): metric
 * labels stay bounded by the config, whatever names clients choose.
 */
export function recordUsage(state: ChatState, labels: PathLabels, status: number): void {
  if (committed.has(state)) return;
  const { key, model, runtime } = state;
  const entry = model === undefined ? undefined : runtime.router.resolve(model)?.entry;
  if (!key || model === undefined || entry === undefined) return;
  const metered = meteredOf(state);
  const seconds = metered?.audioSeconds;
  // The response's 'close' comes before the handler has read a relay's usage off the stream
  // (src/families/chat/pass-through.ts resolves on the same event): the record is built a turn later,
  // and speech seconds once the audio has been written.
  const ledger = state.services.ledger.of(runtime.config);
  if (seconds instanceof Promise) {
    const later = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => seconds)
      .then((audioSeconds) => build({ state, labels, status, model, entry, metered, audioSeconds }));
    if (ledger) ledger.addLater(later, reservationOf(state));
    else void later.catch(() => {});
    return;
  }
  const ended: Ended = { state, labels, status, model, entry, metered, audioSeconds: seconds };
  if (ledger) ledger.addSoon(build, ended, reservationOf(state));
  else setImmediate(build, ended);
}

/**
 * Writes the request's record now, as the answer is about to end (before a non-streamed body is
 * sent, before a stream's final event), and resolves once it is in the store or after
 * usage.store_wait_ms: an answer the client has in full is in the ledger even if the process is
 * killed right after (docs/usage-and-tracing.md). Requests whose quantities are still being
 * measured (speech seconds) are recorded at close as before.
 */
export function commitUsage(state: ChatState, status: number): Promise<void> {
  const { key, model, runtime } = state;
  if (committed.has(state) || !key || model === undefined) return done;
  const entry = runtime.router.resolve(model)?.entry;
  const metered = meteredOf(state);
  const seconds = metered?.audioSeconds;
  const ledger = state.services.ledger.of(runtime.config);
  if (entry === undefined || seconds instanceof Promise || !ledger) return done;
  committed.add(state);
  const format = state.format;
  const labels: PathLabels = {
    family: format?.metricLabel ?? 'none',
    inbound_format: format?.name ?? 'none',
    upstream_format: state.path?.upstream_format ?? 'none',
    provider: state.path?.provider ?? 'none',
    mode: state.path?.mode ?? 'none',
    outcome: state.outcome ?? (status < 400 ? 'ok' : `http_${status}`),
  };
  const record = build({ state, labels, status, model, entry, metered, audioSeconds: seconds });
  return ledger.commit(record, reservationOf(state));
}

const done = Promise.resolve();

function build({ state, labels, status, model, entry, metered, audioSeconds }: Ended): UsageRecord {
  const u = state.usage;
  const key = state.key;
  const upstreamModel = state.path?.upstreamModel;
  const price = priceOf(state.runtime.config, entry, state.path?.provider, upstreamModel);
  const ts = Date.now();
  const r: UsageRecord = {
    ts,
    day: dayOf(ts),
    request_id: state.requestId,
    key: key.id,
    workspace: key.workspace,
    family: labels.family,
    model,
    provider: labels.provider,
    upstream_model: upstreamModel ?? '',
    format_in: labels.inbound_format,
    format_out: labels.upstream_format,
    mode: labels.mode,
    input_tokens: u?.inputTokens ?? 0,
    output_tokens: u?.outputTokens ?? 0,
    reasoning_tokens: u?.reasoningTokens ?? 0,
    cache_read_tokens: u?.cacheReadTokens ?? 0,
    cache_write_tokens: u?.cacheWriteTokens ?? 0,
    usage_source: state.usageSource ?? 'reported',
    characters: metered?.characters ?? 0,
    audio_seconds: Math.round((audioSeconds ?? 0) * 1000) / 1000,
    tasks: metered?.tasks ?? 0,
    web_search_requests: u?.webSearchRequests ?? 0,
    web_fetch_requests: u?.webFetchRequests ?? 0,
    cost_nano: 0,
    priced: price !== undefined,
    outcome: state.outcome ?? labels.outcome,
    status,
    ...requestLogFields(state),
  };
  // Searches and fetches polygate ran (#27) are priced on their own, whatever the model's price.
  r.cost_nano = recordCostNano(price, r) + hostedToolsCostNano(state.runtime.config.hosted_tools, u);
  if (r.cost_nano > 0)
    spendTotal.inc({ key: key.id, model: entry, provider: labels.provider }, r.cost_nano / nanoPerUsd);
  if (!price) unpricedRequestsTotal.inc({ model: entry });
  if (r.content_captured) recordBuilt(state, r);
  return r;
}
