import type { Part } from './chat-request.ts';

/**
 * Unified finish reason. `raw` on ChatFinish keeps the upstream's own word so encoders can be
 * exact when the client speaks the upstream's format.
 */
export type FinishReason =
  'stop' | 'length' | 'tool-calls' | 'stop-sequence' | 'content-filter' | 'refusal' | 'pause' | 'error' | 'other';

export type ChatFinish = { reason: FinishReason; raw: string; stopSequence?: string | null };

/**
 * Token counts with OpenAI's meaning: `inputTokens` is the whole prompt, cached tokens included
 * (Anthropic's `input_tokens` excludes them; its adapter converts), and `outputTokens` includes
 * `reasoningTokens`.
 */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Hosted tools run for the answer (Anthropic `usage.server_tool_use`), by polygate or the provider. */
  webSearchRequests?: number;
  webFetchRequests?: number;
};

export type SafetyRating = { category: string; probability: string; blocked?: boolean };

export type ChatResult = {
  id: string;
  /** The upstream model that served the request. */
  model: string;
  parts: Part[];
  finish: ChatFinish;
  usage: Usage;
  safety?: SafetyRating[];
  /** Whole-prompt block (Gemini promptFeedback.blockReason): no candidate was produced. */
  promptBlocked?: { reason: string };
};

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
