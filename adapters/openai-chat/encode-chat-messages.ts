// IR messages → Chat Completions `messages`
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages).
import { hostedPartText } from '../shared/hosted-part-text.ts';
import type {
  ChatRequest,
  CodePart,
  CodeResultPart,
  FilePart,
  HostedCallPart,
  HostedResultPart,
  ImagePart,
  Part,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { WarningSink } from '../shared/chat-adapter.ts';
import { dataUrlOf } from '../shared/data-url.ts';

export type ChatTextPart = { type: 'text'; text: string };
export type ChatImagePart = { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };
export type ChatFilePart = { type: 'file'; file: { filename?: string; file_data?: string; file_id?: string } };
export type ChatUserPart = ChatTextPart | ChatImagePart | ChatFilePart;
export type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

export type ChatWireMessage =
  | { role: 'system'; content: string | ChatTextPart[] }
  | { role: 'user'; content: string | ChatUserPart[] }
  | { role: 'assistant'; content: string | ChatTextPart[] | null; refusal?: string; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] };

/** One text part travels as a plain string: the form every compatible server accepts. */
function textContent(parts: ChatTextPart[]): string | ChatTextPart[] {
  return parts.length === 1 ? parts[0].text : parts;
}

/** The same for IR text parts: no wire part is built for the one-part case. */
const textsContent = (parts: TextPart[]): string | ChatTextPart[] =>
  parts.length === 1 ? parts[0].text : parts.map((p) => textPart(p.text));

const textPart = (text: string): ChatTextPart => ({ type: 'text', text });

export function encodeChatMessages(req: ChatRequest, warn: WarningSink): ChatWireMessage[] {
  const out: ChatWireMessage[] = [];
  // One `system` message first. OpenAI treats `system` as `developer` for reasoning models by
  // itself, and compatible servers (vLLM, Ollama, …) only know `system`.
  if (req.system.length > 0) out.push({ role: 'system', content: textsContent(req.system) });
  // A mid-conversation instruction stays in place as a `system` message, but never between an
  // assistant's tool calls and the `tool` messages answering them, which must follow it directly:
  // it waits until the next turn's tool messages are out.
  let pending: ChatWireMessage[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    out.push(...pending);
    pending = [];
  };
  for (let i = 0; i < req.messages.length; i++) {
    const m = req.messages[i];
    switch (m.role) {
      case 'system':
        pending.push({ role: 'system', content: textsContent(m.parts) });
        break;
      case 'user':
        // One text part (most turns) is what the general path makes of it: a plain string.
        if (m.parts.length === 1 && m.parts[0].type === 'text') {
          flush();
          out.push({ role: 'user', content: m.parts[0].text });
        } else encodeUserTurn(m.parts, i, warn, out, flush);
        break;
      case 'assistant': {
        flush();
        const assistant =
          m.parts.length === 1 && m.parts[0].type === 'text'
            ? { role: 'assistant' as const, content: m.parts[0].text }
            : encodeAssistantTurn(m.parts, i, warn);
        if (assistant) out.push(assistant);
        break;
      }
      default:
        assertNever(m, 'message role');
    }
  }
  flush();
  warnCacheHints(req, warn);
  return out;
}

/**
 * A user turn becomes: one `tool` message per tool result (they must directly follow the
 * assistant message that made the calls, so they go BEFORE the turn's other user content), then
 * `flush` (the system messages waiting for the tool messages to be out), then one `user` message
 * with everything else; all onto `out`.
 */
function encodeUserTurn(parts: Part[], i: number, warn: WarningSink, out: ChatWireMessage[], flush: () => void): void {
  const toolMessages: ChatWireMessage[] = [];
  const toolImages: ChatUserPart[] = [];
  const content: ChatUserPart[] = [];
  forEachPart(parts, i, warn, content, (p, field) => {
    switch (p.type) {
      case 'image':
        content.push(encodeImage(p, field));
        break;
      case 'file':
        content.push(encodeFile(p, field));
        break;
      case 'tool-result': {
        const { message, images } = encodeToolResult(p, field);
        toolMessages.push(message);
        toolImages.push(...images);
        break;
      }
      case 'refusal':
        content.push(textPart(p.text));
        break;
      case 'tool-call':
        throw invalid(field, `${field}: a tool call can only appear in an assistant message`);
      default:
        return assertNever(p, 'part');
    }
  });
  for (const m of toolMessages) out.push(m);
  flush();
  const user = toolImages.length > 0 ? [...toolImages, ...content] : content;
  if (user.length === 0) return;
  const only = user.length === 1 ? user[0] : undefined;
  out.push({ role: 'user', content: only?.type === 'text' ? only.text : user });
}

/**
 * Tool messages hold text only. Chat Completions has no error flag on a tool result, so a failed
 * call is marked with an `Error: ` prefix the model can read. Images a tool returned travel in a
 * user message right after the tool messages, introduced by a line naming the call.
 */
function encodeToolResult(p: ToolResultPart, field: string): { message: ChatWireMessage; images: ChatUserPart[] } {
  const texts = p.content.filter((c): c is TextPart => c.type === 'text').map((c) => textPart(c.text));
  const imageParts = p.content.filter((c): c is ImagePart => c.type === 'image');
  if (p.isError) {
    if (texts.length === 0) texts.push(textPart('Error'));
    else texts[0] = textPart(`Error: ${texts[0].text}`);
  }
  const message: ChatWireMessage = {
    role: 'tool',
    tool_call_id: p.callId,
    content: texts.length === 0 ? '' : textContent(texts),
  };
  if (imageParts.length === 0) return { message, images: [] };
  const images: ChatUserPart[] = [textPart(`Images returned by tool call ${p.callId}:`)];
  imageParts.forEach((img, k) => images.push(encodeImage(img, `${field}.content.${k}`)));
  return { message, images };
}

function encodeAssistantTurn(parts: Part[], i: number, warn: WarningSink): ChatWireMessage | undefined {
  const texts: ChatTextPart[] = [];
  const refusals: string[] = [];
  const calls: ChatToolCall[] = [];
  forEachPart(parts, i, warn, texts, (p, field) => {
    switch (p.type) {
      case 'refusal':
        refusals.push(p.text);
        break;
      case 'tool-call':
        calls.push(encodeToolCall(p));
        break;
      case 'image':
      case 'file':
      case 'tool-result':
        throw invalid(
          field,
          `${field}: the openai-chat upstream cannot carry ${p.type} content in an assistant message`,
        );
      default:
        return assertNever(p, 'part');
    }
  });
  if (texts.length === 0 && refusals.length === 0 && calls.length === 0) return undefined;
  const message: ChatWireMessage = {
    role: 'assistant',
    // `content` may be null only when the message carries tool calls.
    content: texts.length > 0 ? textContent(texts) : calls.length > 0 ? null : '',
  };
  // In this order on the wire: role, content, refusal, tool_calls.
  if (refusals.length > 0) message.refusal = refusals.join('');
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** Arguments go back byte-exact, as the model produced them. */
const encodeToolCall = (p: ToolCallPart): ChatToolCall => ({
  id: p.id,
  type: 'function',
  function: { name: p.name, arguments: p.args },
});

function encodeImage(p: ImagePart, field: string): ChatImagePart {
  const detail = p.detail ? { detail: p.detail } : {};
  switch (p.source.kind) {
    case 'base64':
      return { type: 'image_url', image_url: { url: dataUrlOf(p.source.mediaType, p.source.data), ...detail } };
    case 'url':
      return { type: 'image_url', image_url: { url: p.source.url, ...detail } };
    case 'file-id':
    case 'text':
      throw invalid(
        field,
        `${field}: the openai-chat upstream takes images as URLs or inline data, not as ${p.source.kind === 'text' ? 'text' : 'a file id'}`,
      );
    default:
      return assertNever(p.source, 'media source');
  }
}

/** PDFs go as `file` parts with a data URL; text documents as text; images as image parts. */
function encodeFile(p: FilePart, field: string): ChatUserPart {
  const s = p.source;
  switch (s.kind) {
    case 'base64': {
      if (s.mediaType.startsWith('image/'))
        return { type: 'image_url', image_url: { url: dataUrlOf(s.mediaType, s.data) } };
      if (s.mediaType.startsWith('text/')) return textPart(decodeBase64Text(s.data, field));
      // File parts carry documents; sound and video (Gemini inlineData) would be refused upstream.
      if (/^(audio|video)\//.test(s.mediaType))
        throw invalid(
          field,
          `${field}: ${s.mediaType} input is not supported by the openai-chat upstream (documents and images only)`,
        );
      const filename = p.filename ?? p.title ?? (s.mediaType === 'application/pdf' ? 'document.pdf' : 'document');
      return { type: 'file', file: { filename, file_data: dataUrlOf(s.mediaType, s.data) } };
    }
    case 'text':
      return textPart(s.text);
    case 'file-id':
      return { type: 'file', file: { file_id: s.fileId } };
    case 'url':
      if (s.mediaType?.startsWith('image/')) return { type: 'image_url', image_url: { url: s.url } };
      throw invalid(
        field,
        `${field}: the openai-chat upstream cannot fetch documents by URL; send the file inline (base64)`,
      );
    default:
      return assertNever(s, 'media source');
  }
}

/** Client decoders check base64 more loosely than atob (Gemini takes the URL-safe alphabet): a 400, not a DOMException. */
function decodeBase64Text(data: string, field: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
  } catch {
    throw invalid(field, `${field}: the text file's data is not valid base64`);
  }
}

/** Parts a turn of either role carries the same way: as text, or not at all. */
type SameInBothRoles = TextPart | HostedCallPart | HostedResultPart | CodePart | CodeResultPart | ReasoningPart;
const sameInBothRoles: ReadonlySet<Part['type']> = new Set([
  'text',
  'hosted-call',
  'hosted-result',
  'code',
  'code-result',
  'reasoning',
]);
const isSameInBothRoles = (p: Part): p is SameInBothRoles => sameInBothRoles.has(p.type);

/**
 * Visits one turn's parts with each one's field path. Parts carried the same way whatever the
 * role never reach `visit`: text, and hosted-tool traffic and code execution (which have no Chat
 * Completions content) go to `texts` as text, so the model still sees them; reasoning is dropped
 * with one warning a turn (Chat Completions has no reasoning input; DeepSeek-style servers even
 * reject `reasoning_content` sent back, so earlier reasoning cannot be replayed).
 */
function forEachPart<T extends ChatUserPart>(
  parts: Part[],
  i: number,
  warn: WarningSink,
  texts: (ChatTextPart | T)[],
  visit: (p: Exclude<Part, SameInBothRoles>, field: string) => void,
): void {
  let warnedReasoning = false;
  // The field's path is built only for a part that may need it (a warning, an error).
  parts.forEach((p, j) => {
    if (!isSameInBothRoles(p)) return visit(p, `messages.${i}.content.${j}`);
    switch (p.type) {
      case 'text':
        texts.push(textPart(p.text));
        break;
      case 'hosted-call':
      case 'hosted-result':
        texts.push(textPart(hostedPartText(p)));
        break;
      case 'code':
      case 'code-result':
        texts.push(textPart(codeAsText(p)));
        warn(
          `messages.${i}.content.${j}`,
          'code-execution parts are sent as text: Chat Completions has no code-execution content',
        );
        break;
      case 'reasoning':
        if (!warnedReasoning)
          warn(`messages.${i}.reasoning`, 'Chat Completions cannot carry reasoning in requests; dropped');
        warnedReasoning = true;
        break;
      default:
        assertNever(p, 'part');
    }
  });
}

function codeAsText(p: CodePart | CodeResultPart): string {
  if (p.type === 'code') return `\`\`\`${p.language.toLowerCase()}\n${p.code}\n\`\`\``;
  return `Code execution result (${p.outcome}):\n\`\`\`\n${p.output}\n\`\`\``;
}

/** Anthropic-style cache breakpoints have no Chat Completions field: OpenAI caches prompts by itself. */
function warnCacheHints(req: ChatRequest, warn: WarningSink): void {
  if (hinted(req)) warn('cache_control', 'prompt-cache hints dropped: OpenAI caches prompts automatically');
}

/** Any part or tool with a cache hint; loops, not callbacks: every translated Chat call asks, for every part. */
function hinted(req: ChatRequest): boolean {
  for (let i = 0; i < req.system.length; i++) if (req.system[i].cache) return true;
  for (let i = 0; i < req.tools.length; i++) if (req.tools[i].cache) return true;
  for (let i = 0; i < req.messages.length; i++) {
    const parts = req.messages[i].parts;
    for (let j = 0; j < parts.length; j++) {
      const p = parts[j];
      if ('cache' in p && p.cache !== undefined) return true;
    }
  }
  return false;
}
