// Mid-conversation instructions (IR `SystemMessage`) for upstreams that have no such message:
// folded, in place, into a user turn as text that says what it is. In place rather than appended
// to the leading system prompt, because such an instruction speaks about the conversation at that
// point (a reminder, a changed mode) and clients sent it as user text before the message existed.
import type { Message, SystemMessage, TextPart, TurnMessage } from '../../src/ir/chat-request.ts';
import type { WarningSink } from './chat-adapter.ts';

export const systemMessageText = (m: SystemMessage): string => m.parts.map((p) => p.text).join('\n');

/** The text a folded instruction becomes: marked, so the model reads it as an instruction, not as the user's words. */
export const foldedSystemText = (m: SystemMessage): string =>
  `<system-instruction>\n${systemMessageText(m)}\n</system-instruction>`;

/** Every system message as a user turn of marked text; one warning names the first and the upstream. */
export function foldSystemMessages(messages: Message[], upstream: string, warn: WarningSink): TurnMessage[] {
  const first = messages.findIndex((m) => m.role === 'system');
  if (first < 0) return messages as TurnMessage[];
  warn(
    `messages.${first}`,
    `${upstream} has no mid-conversation system message; system messages were folded into user turns as marked text`,
  );
  return messages.map((m): TurnMessage =>
    m.role === 'system' ? { role: 'user', parts: [{ type: 'text', text: foldedSystemText(m) }] } : m,
  );
}

/**
 * A client's system or developer message, placed (Chat Completions and Responses clients send
 * them anywhere). Leading instructions are the system prompt. One after the conversation has
 * begun (a reminder, a changed mode; Codex adds a developer message with its new permissions when
 * they change mid-session) is an instruction at that point: an IR system message in place, which
 * each upstream encoder keeps or folds there.
 */
export function placeInstructions(
  parts: TextPart[],
  leading: boolean,
  to: { system: TextPart[]; messages: Message[] },
): void {
  if (leading) to.system.push(...parts);
  else if (parts.length > 0) to.messages.push({ role: 'system', parts });
}
