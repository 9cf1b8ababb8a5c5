// Anthropic-style prompt-cache breakpoints (`cache_control`) exist only in the Messages format;
// OpenAI and Gemini cache prompts by themselves. An encoder for those formats checks for them so
// the drop is reported as a warning, never silent.
import type { ChatRequest } from '../../src/ir/chat-request.ts';

export function hasCacheHints(req: ChatRequest): boolean {
  return (
    req.system.some((p) => p.cache !== undefined) ||
    req.tools.some((t) => t.cache !== undefined) ||
    req.messages.some((m) => m.parts.some((p) => 'cache' in p && p.cache !== undefined))
  );
}
