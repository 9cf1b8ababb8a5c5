// One documented mapping between reasoning budgets (Anthropic `thinking.budget_tokens`, Gemini
// `thinkingConfig.thinkingBudget`) and efforts (OpenAI `reasoning_effort`, Responses
// `reasoning.effort`). The budgets are the midpoints OpenAI's effort levels are commonly matched
// to; README "Reasoning" documents the same table.
import type { ReasoningEffort } from '../../src/ir/chat-request.ts';

export const budgetOfEffort: Record<ReasoningEffort, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
};

export function effortOfBudget(budget: number): ReasoningEffort {
  if (budget <= 1024) return 'minimal';
  if (budget <= 4096) return 'low';
  if (budget <= 16384) return 'medium';
  return 'high';
}
