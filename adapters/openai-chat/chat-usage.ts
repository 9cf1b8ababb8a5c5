// Chat Completions `usage` ⇄ IR Usage (https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage).
// OpenAI's prompt_tokens already include cached tokens and completion_tokens include reasoning
// tokens, so the IR counts are taken as they are and the details are breakdowns, not additions.
import type { Usage } from '../../src/ir/chat-result.ts';
import { isObject } from '../shared/narrow.ts';

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

export function decodeChatUsage(v: unknown): Usage {
  if (!isObject(v)) return { inputTokens: 0, outputTokens: 0 };
  const usage: Usage = { inputTokens: count(v.prompt_tokens) ?? 0, outputTokens: count(v.completion_tokens) ?? 0 };
  const reasoning = isObject(v.completion_tokens_details)
    ? count(v.completion_tokens_details.reasoning_tokens)
    : undefined;
  // DeepSeek counts cache hits in `prompt_cache_hit_tokens` (also part of prompt_tokens).
  const cached = isObject(v.prompt_tokens_details)
    ? count(v.prompt_tokens_details.cached_tokens)
    : count(v.prompt_cache_hit_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  return usage;
}

export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
};

export function encodeChatUsage(u: Usage): ChatUsage {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
  };
}
