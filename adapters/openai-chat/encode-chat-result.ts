// IR ChatResult → a `chat.completion` object for a client
// (https://platform.openai.com/docs/api-reference/chat/object).
import type { ChatRequest, Citation, Part } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { failedFinish } from '../shared/failed-finish.ts';
import { chatReasonOfFinish, type ChatFinishReason } from './chat-finish-reason.ts';
import { encodeChatUsage, type ChatUsage } from './chat-usage.ts';
import type { ChatToolCall } from './encode-chat-messages.ts';

export type ChatAnnotation = {
  type: 'url_citation';
  url_citation: { url: string; title: string; start_index: number; end_index: number };
};

export type ChatCompletion = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: string | null;
      tool_calls?: ChatToolCall[];
      annotations: ChatAnnotation[];
    };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }>;
  usage: ChatUsage;
};

/** OpenAI ids look like `chatcmpl-…`; clients and logs recognise the prefix. */
export const chatCompletionId = (id: string): string => (id.startsWith('chatcmpl-') ? id : `chatcmpl-${id}`);

export function encodeChatResult(result: ChatResult, request: ChatRequest): ChatCompletion {
  const failed = failedFinish(result.finish);
  if (failed) throw failed;
  let content = '';
  let refusal: string | null = null;
  const calls: ChatToolCall[] = [];
  const annotations: ChatAnnotation[] = [];
  for (const p of result.parts) {
    const text = textOf(p);
    if (text !== undefined) {
      if (p.type === 'text') annotations.push(...annotationsOf(p.citations, content.length, p.text.length));
      content += text;
    } else if (p.type === 'refusal') refusal = (refusal ?? '') + p.text;
    else if (p.type === 'tool-call')
      calls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: p.args } });
  }
  return {
    id: chatCompletionId(result.id),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // null when the answer is only tool calls (or only a refusal), as OpenAI sends it.
          content: content === '' && (calls.length > 0 || refusal !== null) ? null : content,
          refusal,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          annotations,
        },
        logprobs: null,
        finish_reason: chatReasonOfFinish(result.finish),
      },
    ],
    usage: encodeChatUsage(result.usage),
  };
}

/**
 * The text a part contributes to `message.content`. Reasoning is not part of the Chat
 * Completions format and must not leak into the answer; code execution (Gemini) is shown as
 * markdown, the way a chat UI would render it.
 */
export function textOf(p: Part): string | undefined {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'code':
      return `\n\`\`\`${p.language.toLowerCase()}\n${p.code}\n\`\`\`\n`;
    case 'code-result':
      return `\n\`\`\`\n${p.output}\n\`\`\`\n`;
    case 'image':
      // Generated images (Gemini) have no Chat Completions field; a markdown image keeps them.
      return p.source.kind === 'url'
        ? `![image](${p.source.url})`
        : p.source.kind === 'base64'
          ? `![image](data:${p.source.mediaType};base64,${p.source.data})`
          : undefined;
    // Hosted searches show as the answer's `annotations` (its text's citations), not as text.
    case 'reasoning':
    case 'file':
    case 'tool-call':
    case 'tool-result':
    case 'refusal':
    case 'hosted-call':
    case 'hosted-result':
      return undefined;
    default:
      return assertNever(p, 'part');
  }
}

/** URL citations become `url_citation` annotations, offsets shifted to the joined content. */
function annotationsOf(citations: Citation[] | undefined, offset: number, length: number): ChatAnnotation[] {
  const out: ChatAnnotation[] = [];
  for (const c of citations ?? []) {
    if (c.kind !== 'url') continue;
    out.push({
      type: 'url_citation',
      url_citation: {
        url: c.url,
        title: c.title ?? '',
        start_index: offset + (c.start ?? 0),
        end_index: offset + (c.end ?? length),
      },
    });
  }
  return out;
}
