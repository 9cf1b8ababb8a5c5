import type { ChatState } from '../services/runtime/request-state.ts';
import { spendTotal, unpricedRequestsTotal } from '../infra/metrics/registry.ts';
import { meteredOf } from '../services/usage/meter.ts';
import { costNano, nanoPerUsd, noUnits, priceOf, type Units } from '../services/usage/prices.ts';
import { dayOf, type UsageRecord } from '../services/usage/usage-record.ts';

/** The request's translation path as the app's request scope labels it. */
export type PathLabels = { family: string; inbound_format: string; upstream_format: string; provider: string; mode: string; outcome: string };

/**
 * Called once when a response has ended (src/app/app.ts): prices the request, counts the spend
 * metric and queues the ledger record. Requests that named no model of this config (bad input,
 * unknown model, reads of stored objects) are not recorded: they used nothing. A name a glob entry
 * matched is recorded as sent, but priced and labelled in metrics by its entry (`claude-*`): metric
 * labels stay bounded by the config, whatever names clients choose.
 */
export function recordUsage(state: ChatState, labels: PathLabels, status: number): void {
  const { key, model, runtime } = state;
  const entry = model === undefined ? undefined : runtime.router.resolve(model)?.entry;
  if (!key || model === undefined || entry === undefined) return;
  const m = meteredOf(state);
  const build = (audioSeconds: number | undefined): UsageRecord => {
    const u = state.usage;
    const units: Units = {
      inputTokens: u?.inputTokens ?? 0,
      outputTokens: u?.outputTokens ?? 0,
      cacheReadTokens: u?.cacheReadTokens ?? 0,
      cacheWriteTokens: u?.cacheWriteTokens ?? 0,
      characters: m?.characters ?? 0,
      audioSeconds: Math.round((audioSeconds ?? 0) * 1000) / 1000,
      tasks: m?.tasks ?? 0,
    };
    const price = priceOf(runtime.config, entry, state.path?.provider, state.path?.upstreamModel);
    const cost = costNano(price, units);
    if (cost > 0) spendTotal.inc({ key: key.id, model: entry, provider: labels.provider }, cost / nanoPerUsd);
    if (!price) unpricedRequestsTotal.inc({ model: entry });
    const ts = Date.now();
    return {
      ts,
      day: dayOf(ts),
      request_id: state.requestId,
      key: key.id,
      workspace: key.workspace,
      family: labels.family,
      model,
      provider: labels.provider,
      upstream_model: state.path?.upstreamModel ?? '',
      format_in: labels.inbound_format,
      format_out: labels.upstream_format,
      mode: labels.mode,
      input_tokens: units.inputTokens,
      output_tokens: units.outputTokens,
      reasoning_tokens: u?.reasoningTokens ?? 0,
      cache_read_tokens: units.cacheReadTokens,
      cache_write_tokens: units.cacheWriteTokens,
      characters: units.characters,
      audio_seconds: units.audioSeconds,
      tasks: units.tasks,
      cost_nano: cost,
      priced: price !== undefined,
      outcome: state.outcome ?? labels.outcome,
      status,
    };
  };
  // The response's 'close' comes before the handler has read a relay's usage off the stream
  // (src/families/chat/pass-through.ts resolves on the same event): the record is built a turn later,
  // and speech seconds once the audio has been written.
  const ledger = state.services.ledger.of(runtime.config);
  const seconds = m?.audioSeconds;
  if (seconds instanceof Promise) {
    const later = new Promise<void>((resolve) => setImmediate(resolve)).then(() => seconds).then(build);
    if (ledger) ledger.addLater(later);
    else void later.catch(() => {});
  } else if (ledger) ledger.addSoon(() => build(seconds));
  else setImmediate(() => build(seconds));
}
