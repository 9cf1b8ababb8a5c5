// One documented mapping between reasoning budgets (Anthropic `thinking.budget_tokens`, Gemini
// `thinkingConfig.thinkingBudget`) and efforts (OpenAI `reasoning_effort`, Responses
// `reasoning.effort`). The budgets are the midpoints OpenAI's effort levels are commonly matched
// to; README "Reasoning" documents the same table.
import type { ReasoningEffort } from '../../src/ir/chat-request.ts';

export const budgetOfEffort: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 65536,
};

/** Every effort level, lowest first: the order `nearestEffort` walks. */
export const effortLevels: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * The level an upstream that knows only `supported` should get for `effort`: the same level, or
 * the nearest one (a tie goes to the higher, so a client never gets less reasoning than the next
 * level down).
 */
export function nearestEffort<T extends ReasoningEffort>(effort: ReasoningEffort, supported: readonly T[]): T {
  const at = effortLevels.indexOf(effort);
  let best = supported[0] as T;
  let bestDistance = Infinity;
  for (const s of supported) {
    const d = Math.abs(effortLevels.indexOf(s) - at);
    if (d < bestDistance || (d === bestDistance && effortLevels.indexOf(s) > effortLevels.indexOf(best))) {
      best = s;
      bestDistance = d;
    }
  }
  return best;
}

export function effortOfBudget(budget: number): ReasoningEffort {
  if (budget <= 1024) return 'minimal';
  if (budget <= 4096) return 'low';
  if (budget <= 16384) return 'medium';
  return 'high';
}
