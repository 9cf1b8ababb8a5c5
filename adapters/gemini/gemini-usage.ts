// usageMetadata ⇄ IR usage (https://ai.google.dev/api/generate-content#UsageMetadata).
// IR inputTokens counts the whole prompt, cached part included (promptTokenCount already does,
// plus toolUsePromptTokenCount for tool-use prompts); IR outputTokens counts everything
// generated, thoughts included, while candidatesTokenCount excludes thoughtsTokenCount.
import type { Usage } from '../../src/ir/chat-result.ts';
import { isObject, type Json } from '../shared/narrow.ts';

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

export function usageOfGemini(v: unknown): Usage {
  if (!isObject(v)) return { inputTokens: 0, outputTokens: 0 };
  const thoughts = count(v.thoughtsTokenCount);
  const usage: Usage = {
    inputTokens: (count(v.promptTokenCount) ?? 0) + (count(v.toolUsePromptTokenCount) ?? 0),
    outputTokens: (count(v.candidatesTokenCount) ?? 0) + (thoughts ?? 0),
  };
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  const cached = count(v.cachedContentTokenCount);
  if (cached !== undefined) usage.cacheReadTokens = cached;
  return usage;
}

export function geminiUsageMetadata(u: Usage): Json {
  const thoughts = u.reasoningTokens ?? 0;
  const meta: Json = {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: Math.max(0, u.outputTokens - thoughts),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
  if (u.cacheReadTokens) meta.cachedContentTokenCount = u.cacheReadTokens;
  if (thoughts > 0) meta.thoughtsTokenCount = thoughts;
  return meta;
}
