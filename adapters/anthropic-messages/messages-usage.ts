// Anthropic's `input_tokens` counts only the uncached part of the prompt; the total is
// input_tokens + cache_creation_input_tokens + cache_read_input_tokens
// (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance).
// IR Usage.inputTokens is that total, so both directions convert here.
import type { Usage } from '../../src/ir/chat-result.ts';
import { isObject } from '../shared/narrow.ts';

/** In the API's own key order. */
export type WireUsage = {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  /** Only when a hosted tool ran, as the API reports it. */
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
};

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/**
 * Reads a wire usage object into a partial IR usage: only the counters present are set, since a
 * `message_delta` may carry just `output_tokens`.
 */
export function usageOfWire(u: unknown): Partial<Usage> {
  if (!isObject(u)) return {};
  const input = count(u.input_tokens);
  const read = count(u.cache_read_input_tokens);
  const write = count(u.cache_creation_input_tokens);
  const out: Partial<Usage> = {};
  if (input !== undefined) out.inputTokens = input + (read ?? 0) + (write ?? 0);
  const output = count(u.output_tokens);
  if (output !== undefined) out.outputTokens = output;
  if (read !== undefined) out.cacheReadTokens = read;
  if (write !== undefined) out.cacheWriteTokens = write;
  const thinking = isObject(u.output_tokens_details) ? count(u.output_tokens_details.thinking_tokens) : undefined;
  if (thinking !== undefined) out.reasoningTokens = thinking;
  const server = isObject(u.server_tool_use) ? u.server_tool_use : {};
  const searches = count(server.web_search_requests);
  const fetches = count(server.web_fetch_requests);
  if (searches) out.webSearchRequests = searches;
  if (fetches) out.webFetchRequests = fetches;
  return out;
}

export function completeUsage(u: Partial<Usage>): Usage {
  return { ...u, inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0 };
}

export function wireUsageOf(u: Partial<Usage>): WireUsage {
  const read = u.cacheReadTokens ?? 0;
  const write = u.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (u.inputTokens ?? 0) - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: u.outputTokens ?? 0,
    ...(u.webSearchRequests || u.webFetchRequests
      ? {
          server_tool_use: {
            web_search_requests: u.webSearchRequests ?? 0,
            web_fetch_requests: u.webFetchRequests ?? 0,
          },
        }
      : {}),
  };
}
