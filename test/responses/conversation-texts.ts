// Reads what an emulated upstream received back into one neutral shape, so a test can say "the
// upstream got the whole history" the same way for every wire format.
import type { Json } from '../helpers/json.ts';
export type Turn = { role: 'user' | 'assistant'; text: string };

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((c: Json) => c.text ?? c.output ?? '')
          .filter((t: unknown) => typeof t === 'string' && t !== '')
          .join(' ')
      : '';

export function conversationOf(
  format: 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini',
  body: Json,
): Turn[] {
  switch (format) {
    case 'openai-chat':
      return body.messages
        .filter((m: Json) => m.role === 'user' || m.role === 'assistant')
        .map((m: Json) => ({ role: m.role, text: textOf(m.content) }));
    case 'openai-responses':
      return (body.input as Json[])
        .filter((i) => (i.type ?? 'message') === 'message' && i.role !== 'system' && i.role !== 'developer')
        .map((i) => ({ role: i.role, text: textOf(i.content) }));
    case 'anthropic':
      return body.messages.map((m: Json) => ({ role: m.role, text: textOf(m.content) }));
    case 'gemini':
      return body.contents.map((c: Json) => ({
        role: c.role === 'model' ? 'assistant' : 'user',
        text: textOf(c.parts),
      }));
  }
}

export function systemOf(
  format: 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini',
  body: Json,
): string | undefined {
  switch (format) {
    case 'openai-chat':
      return body.messages.find((m: Json) => m.role === 'system' || m.role === 'developer')?.content;
    case 'openai-responses':
      return body.instructions ?? undefined;
    case 'anthropic':
      return typeof body.system === 'string'
        ? body.system
        : body.system?.map((b: Json) => b.text).join('') || undefined;
    case 'gemini':
      return body.systemInstruction ? textOf(body.systemInstruction.parts) : undefined;
  }
}
