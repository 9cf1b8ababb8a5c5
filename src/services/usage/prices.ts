// What one request cost, from the prices in config (usage.prices). Costs are whole nano-dollars
// (1e-9 USD): each record's cost is rounded once, and every total after that is a sum of
// integers, so a day's or a key's total is exact whatever order records are added in (floats
// summed in a different order differ in the last digits, and budgets compare totals).
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import type { Price } from '../../infra/config/usage-config.ts';
import type { UsageRecord } from './usage-record.ts';

/** The quantities a request is charged for. */
export type Units = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  characters: number;
  audioSeconds: number;
  tasks: number;
};

export const noUnits = (): Units => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  characters: 0,
  audioSeconds: 0,
  tasks: 0,
});

export const nanoPerUsd = 1e9;

/**
 * The client-facing model's price when it has one (what the operator charges for that name,
 * whichever route served), else the price of the provider's upstream model; undefined = unpriced.
 */
export function priceOf(
  config: GatewayConfig,
  model: string,
  provider: string | undefined,
  upstreamModel: string | undefined,
): Price | undefined {
  const p = config.usage.prices;
  return (
    p.models[model] ??
    (provider !== undefined && upstreamModel !== undefined ? p.providers[provider]?.[upstreamModel] : undefined)
  );
}

/**
 * Nano-dollars. `inputTokens` counts the whole prompt, cached tokens included (src/ir/chat-result.ts),
 * so the uncached part is what remains after cache reads and writes; those are charged at their
 * own prices, or at the input price when the model has none for them.
 */
export function costNano(price: Price | undefined, u: Units): number {
  return price
    ? nanoOf(
        price,
        u.inputTokens,
        u.outputTokens,
        u.cacheReadTokens,
        u.cacheWriteTokens,
        u.characters,
        u.audioSeconds,
        u.tasks,
      )
    : 0;
}

/** `costNano` of a usage record's quantities (src/app/record-usage.ts prices each request without building `Units`). */
export function recordCostNano(price: Price | undefined, r: UsageRecord): number {
  return price
    ? nanoOf(
        price,
        r.input_tokens,
        r.output_tokens,
        r.cache_read_tokens,
        r.cache_write_tokens,
        r.characters,
        r.audio_seconds,
        r.tasks,
      )
    : 0;
}

function nanoOf(
  price: Price,
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  characters: number,
  audioSeconds: number,
  tasks: number,
): number {
  const inputPrice = price.input ?? 0;
  const uncached = Math.max(0, input - cacheRead - cacheWrite);
  // USD per million tokens × 1e9 nano / 1e6 tokens = × 1000 per token.
  const tokens =
    (uncached * inputPrice +
      cacheRead * (price.cache_read ?? inputPrice) +
      cacheWrite * (price.cache_write ?? inputPrice) +
      output * (price.output ?? 0)) *
    1000;
  const other =
    (characters * (price.per_character ?? 0) + audioSeconds * (price.per_second ?? 0) + tasks * (price.per_task ?? 0)) *
    nanoPerUsd;
  return Math.round(tokens + other);
}

/** Client-facing models that have no price of their own and no route with a provider price (check-config says so). */
export function unpricedModels(config: GatewayConfig): string[] {
  const p = config.usage.prices;
  return Object.entries(config.models)
    .filter(
      ([name, m]) =>
        !p.models[name] && !m.routes.some((r) => r.model !== undefined && p.providers[r.provider]?.[r.model]),
    )
    .map(([name]) => name);
}
