// What a budget reservation holds for a chat request (src/services/access/budgets.ts): the
// prompt's estimate plus the most the answer may be, priced as its record would be.
import type { ChatRequest } from '../../ir/chat-request.ts';
import type { RequestState } from '../runtime/request-state.ts';
import type { Route } from '../routing/model-router.ts';
import { estimateTokens } from '../tokens/estimate-tokens.ts';
import { costNano, noUnits, priceOf } from '../usage/prices.ts';

type Json = Record<string, unknown>;

const positive = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.ceil(v) : undefined;

/**
 * The output limit the client set, in whichever format's field: Messages and Chat `max_tokens`,
 * Chat `max_completion_tokens`, Responses `max_output_tokens`, Gemini
 * `generationConfig.maxOutputTokens`; undefined when it set none.
 */
export function outputLimitOf(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Json;
  const g = b.generationConfig ?? b.generation_config;
  return (
    positive(b.max_completion_tokens) ??
    positive(b.max_tokens) ??
    positive(b.max_output_tokens) ??
    (typeof g === 'object' && g !== null
      ? positive((g as Json).maxOutputTokens ?? (g as Json).max_output_tokens)
      : undefined)
  );
}

/**
 * Nano-dollars and budget tokens: the prompt's estimate (the decoded request's, or for a relayed
 * body its length / 4) plus the output limit (usage.reserve_output_tokens when the request sets
 * none), priced by the model's own price, else the dearest of its routes' provider prices: the
 * route that will serve is not known yet, and a reservation must not be below the real cost.
 */
export function expectedCost(
  state: RequestState,
  routes: readonly Route[],
  prompt: ChatRequest | undefined,
  body: unknown,
  bodyLength: number,
): { costNano: number; tokens: number } {
  const config = state.runtime.config;
  const input = prompt ? estimateTokens(prompt) : Math.ceil(bodyLength / 4);
  const output = outputLimitOf(body) ?? prompt?.maxTokens ?? config.usage.reserve_output_tokens;
  const units = { ...noUnits(), inputTokens: input, outputTokens: output };
  const entry = state.runtime.router.resolve(state.model ?? '')?.entry ?? '';
  let cost = 0;
  const own = priceOf(config, entry, undefined, undefined);
  if (own) cost = costNano(own, units);
  else for (const r of routes) cost = Math.max(cost, costNano(priceOf(config, entry, r.provider, r.model), units));
  return { costNano: cost, tokens: input + output };
}
