import type { UpstreamName } from '../harness.ts';
import { anthropicInspector } from './anthropic-inspector.ts';
import { geminiInspector } from './gemini-inspector.ts';
import type { Inspector } from './inspector.ts';
import { openaiChatInspector } from './openai-chat-inspector.ts';
import { openaiResponsesInspector } from './openai-responses-inspector.ts';

export const inspectors: Record<Exclude<UpstreamName, 'echo'>, Inspector> = {
  anthropic: anthropicInspector,
  'openai-chat': openaiChatInspector,
  'openai-responses': openaiResponsesInspector,
  gemini: geminiInspector,
};
export type { Inspector, Received } from './inspector.ts';
