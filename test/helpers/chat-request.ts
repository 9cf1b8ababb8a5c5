// The IR request encoder and codec tests start from: one user turn saying "hi", nothing else set.
// Each test names what it changes (`model`, `stream`, tools, sampling...) over it.
import type { ChatRequest } from '../../src/ir/chat-request.ts';

export function chatRequest(patch: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'm',
    system: [],
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: {},
    stream: false,
    extensions: {},
    ...patch,
  };
}
