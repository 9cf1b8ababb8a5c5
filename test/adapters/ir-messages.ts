// IR conversation pieces as the adapter tests write them (a request's turns, or the turns a decoder
// is expected to produce): one call a turn or part, so a test shows the conversation, not its braces.
import type {
  Part,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  TurnMessage,
} from '../../src/ir/chat-request.ts';

export const text = (value: string): TextPart => ({ type: 'text', text: value });

export const user = (...parts: Part[]): TurnMessage => ({ role: 'user', parts });
export const assistant = (...parts: Part[]): TurnMessage => ({ role: 'assistant', parts });
/** An instruction in the conversation (a system message in place). */
export const system = (...parts: TextPart[]): SystemMessage => ({ role: 'system', parts });
/** A user turn of one text part. */
export const userText = (value: string): TurnMessage => user(text(value));

export const toolCall = (id: string, name: string, args: string): ToolCallPart => ({
  type: 'tool-call',
  id,
  name,
  args,
});

/** A tool's result: one text part a string, not an error unless `more` says so. */
export const toolResult = (
  callId: string,
  content: string | string[],
  more: Partial<Omit<ToolResultPart, 'type' | 'callId' | 'content'>> = {},
): ToolResultPart => ({
  type: 'tool-result',
  callId,
  content: (typeof content === 'string' ? [content] : content).map(text),
  isError: false,
  ...more,
});
