// IR messages → Responses `input` items, for polygate calling an OpenAI Responses upstream
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
// User content → message items (input_text / input_image / input_file), tool results →
// function_call_output, assistant text → message items with output_text, tool calls →
// function_call, OpenAI reasoning with encrypted content → reasoning items (other reasoning cannot
// be replayed to OpenAI and is dropped with a warning).
import { hostedPartText } from '../shared/hosted-part-text.ts';
import type { FilePart, ImagePart, Message, Part, ReasoningPart, ToolResultPart } from '../../src/ir/chat-request.ts';
import { invalid, type GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { WarningSink } from '../shared/chat-adapter.ts';
import type { Json } from '../shared/narrow.ts';
import { dataUrlOf } from '../shared/data-url.ts';
import { isReasoningItemId } from './responses-ids.ts';

export type EncodedInput = { items: Json[]; replaysEncryptedReasoning: boolean };

export function encodeInputItems(messages: Message[], warn: WarningSink): EncodedInput {
  const out: EncodedInput = { items: [], replaysEncryptedReasoning: false };
  let droppedReasoning = 0;
  messages.forEach((m, i) => {
    // A mid-conversation instruction is a `developer` message in place: the role OpenAI gives
    // instructions (it reads `system` as `developer` anyway).
    if (m.role === 'system') {
      out.items.push({
        type: 'message',
        role: 'developer',
        content: m.parts.map((p) => ({ type: 'input_text', text: p.text })),
      });
      return;
    }
    let content: Json[] = [];
    const flush = (): void => {
      if (content.length > 0) out.items.push({ type: 'message', role: m.role, content });
      content = [];
    };
    for (const p of m.parts) {
      const item = m.role === 'user' ? userPart(p, i) : assistantPart(p, i);
      if (item === 'drop') droppedReasoning++;
      else if (item.kind === 'content') content.push(item.json);
      else {
        flush();
        if (item.json.type === 'reasoning') out.replaysEncryptedReasoning = true;
        out.items.push(item.json);
      }
    }
    flush();
  });
  if (droppedReasoning > 0) {
    warn(
      'messages',
      `${droppedReasoning} reasoning part(s) from another provider cannot be replayed to an OpenAI Responses upstream and were left out`,
    );
  }
  return out;
}

/** A content entry of the current message, or an item of its own. */
type Encoded = { kind: 'content' | 'item'; json: Json } | 'drop';

/** A part the Responses API has no place for in a turn of that role. */
const misplaced = (p: Part, i: number, role: 'user' | 'assistant'): GatewayError =>
  invalid(
    `messages[${i}]`,
    `messages[${i}]: ${role === 'user' ? 'a user' : 'an assistant'} turn cannot carry a '${p.type}' part to an OpenAI Responses upstream`,
  );

function userPart(p: Part, i: number): Encoded {
  switch (p.type) {
    case 'text':
      return { kind: 'content', json: { type: 'input_text', text: p.text } };
    case 'image':
      return { kind: 'content', json: imageContent(p, `messages[${i}]`) };
    case 'file':
      return { kind: 'content', json: fileContent(p, `messages[${i}]`) };
    case 'tool-result':
      return { kind: 'item', json: callOutput(p, i) };
    case 'hosted-call':
    case 'hosted-result':
      return { kind: 'content', json: { type: 'input_text', text: hostedPartText(p) } };
    case 'code':
    case 'code-result':
    case 'refusal':
    case 'reasoning':
    case 'tool-call':
      throw misplaced(p, i, 'user');
    default:
      return assertNever(p, 'part');
  }
}

function assistantPart(p: Part, i: number): Encoded {
  switch (p.type) {
    case 'text':
      return { kind: 'content', json: { type: 'output_text', text: p.text, annotations: [] } };
    case 'refusal':
      return { kind: 'content', json: { type: 'refusal', refusal: p.text } };
    case 'hosted-call':
    case 'hosted-result':
      return { kind: 'content', json: { type: 'output_text', text: hostedPartText(p), annotations: [] } };
    case 'code':
      return {
        kind: 'content',
        json: { type: 'output_text', text: `\`\`\`${p.language.toLowerCase()}\n${p.code}\n\`\`\``, annotations: [] },
      };
    case 'code-result':
      return { kind: 'content', json: { type: 'output_text', text: `\`\`\`\n${p.output}\n\`\`\``, annotations: [] } };
    case 'tool-call':
      return { kind: 'item', json: { type: 'function_call', call_id: p.id, name: p.name, arguments: p.args } };
    case 'reasoning':
      return reasoningItem(p);
    case 'image':
    case 'file':
    case 'tool-result':
      throw misplaced(p, i, 'assistant');
    default:
      return assertNever(p, 'part');
  }
}

/**
 * Only OpenAI's own reasoning can be replayed, with its encrypted_content and the item id the
 * content is bound to (kept in `signature` by this adapter's decoders).
 */
function reasoningItem(p: ReasoningPart): Encoded {
  if (p.origin !== 'openai-responses' || p.encrypted === undefined || !isReasoningItemId(p.signature)) return 'drop';
  const summary = p.text ? [{ type: 'summary_text', text: p.text }] : [];
  return { kind: 'item', json: { type: 'reasoning', id: p.signature, summary, encrypted_content: p.encrypted } };
}

function imageContent(p: ImagePart, where: string): Json {
  const detail = p.detail ?? 'auto';
  switch (p.source.kind) {
    case 'base64':
      return { type: 'input_image', image_url: dataUrlOf(p.source.mediaType, p.source.data), detail };
    case 'url':
      return { type: 'input_image', image_url: p.source.url, detail };
    case 'file-id':
      return { type: 'input_image', file_id: p.source.fileId, detail };
    case 'text':
      throw invalid(where, `${where}: an image given as text cannot be sent to an OpenAI Responses upstream`);
    default:
      return assertNever(p.source, 'media source');
  }
}

function fileContent(p: FilePart, where: string): Json {
  switch (p.source.kind) {
    case 'base64':
      // input_file carries documents; sound and video (Gemini inlineData) would be refused upstream.
      if (/^(audio|video)\//.test(p.source.mediaType))
        throw invalid(
          where,
          `${where}: ${p.source.mediaType} input is not supported by an OpenAI Responses upstream (documents and images only)`,
        );
      // OpenAI requires a filename alongside inline file data.
      return {
        type: 'input_file',
        filename: p.filename ?? p.title ?? 'file',
        file_data: dataUrlOf(p.source.mediaType, p.source.data),
      };
    case 'url':
      return { type: 'input_file', file_url: p.source.url };
    case 'file-id':
      return { type: 'input_file', file_id: p.source.fileId };
    case 'text':
      // A plain-text document: its text is the content.
      return { type: 'input_text', text: p.source.text };
    default:
      return assertNever(p.source, 'media source');
  }
}

/**
 * Text-only results are one string (the common case); with images, the list form of `output`.
 * function_call_output has no error flag, so a failed call is marked with an `Error: ` prefix
 * the model can read (the same convention as the Chat Completions encoder).
 */
function callOutput(p: ToolResultPart, i: number): Json {
  const content = p.isError ? markError(p.content) : p.content;
  const texts = content.filter((c) => c.type === 'text');
  if (texts.length === content.length)
    return { type: 'function_call_output', call_id: p.callId, output: texts.map((c) => c.text).join('\n') };
  const output = content.map((c) =>
    c.type === 'text' ? { type: 'input_text', text: c.text } : imageContent(c, `messages[${i}]`),
  );
  return { type: 'function_call_output', call_id: p.callId, output };
}

function markError(content: ToolResultPart['content']): ToolResultPart['content'] {
  const at = content.findIndex((c) => c.type === 'text');
  if (at < 0) return [{ type: 'text', text: 'Error' }, ...content];
  return content.map((c, k) => (k === at && c.type === 'text' ? { ...c, text: `Error: ${c.text}` } : c));
}
