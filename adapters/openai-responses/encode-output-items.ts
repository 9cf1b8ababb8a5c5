// IR result parts → Responses output items, in part order
// (https://platform.openai.com/docs/api-reference/responses/object#responses/object-output).
// Consecutive text parts form one output_text (Anthropic splits cited text into several blocks;
// OpenAI has one text with annotations), a refusal is its own content entry of the same message,
// tool calls are function_call items (custom_tool_call for a free-form tool, tool-identities.ts),
// reasoning parts are reasoning items.
import type { Citation, MediaSource, Part, ReasoningPart } from '../../src/ir/chat-request.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { hasOpaque, sealReasoning } from '../shared/reasoning-envelope.ts';
import { isReasoningItemId, type IdSource } from './responses-ids.ts';
import { customInput, identityOf, wireToolName, type ToolIdentities } from './tool-identities.ts';
import type {
  Annotation,
  MessageItem,
  OutputItem,
  OutputText,
  ReasoningItem,
  WebSearchCallItem,
} from './responses-wire-types.ts';
import { completeWebSearchCall, webSearchCallOf } from './web-search-items.ts';

/** `toolIdentities` restores namespaced function names (tool-identities.ts). */
export type ItemOptions = { ids: IdSource; includeEncrypted: boolean; toolIdentities: ToolIdentities };

export function encodeOutputItems(parts: Part[], opts: ItemOptions): OutputItem[] {
  const items: OutputItem[] = [];
  const calls = new Map<string, WebSearchCallItem>();
  let message: MessageItem | undefined;
  const openMessage = (): MessageItem => {
    if (!message) {
      message = { id: opts.ids.newId('msg'), type: 'message', status: 'completed', content: [], role: 'assistant' };
      items.push(message);
    }
    return message;
  };
  const appendText = (text: string, citations: Citation[] = []): void => {
    const m = openMessage();
    const last = m.content[m.content.length - 1];
    const out: OutputText =
      last && last.type === 'output_text' ? last : { type: 'output_text', annotations: [], logprobs: [], text: '' };
    if (out !== last) m.content.push(out);
    const offset = out.text.length;
    out.text += text;
    for (const c of citations) {
      const a = annotationOf(c, offset, text.length);
      if (a) out.annotations.push(a);
    }
  };
  for (const p of parts) {
    switch (p.type) {
      case 'text':
        appendText(p.text, p.citations);
        break;
      case 'refusal':
        openMessage().content.push({ type: 'refusal', refusal: p.text });
        break;
      case 'code':
        // Responses has no code part outside code_interpreter calls: shown as a fenced block.
        appendText(`\n\`\`\`${p.language.toLowerCase()}\n${p.code}\n\`\`\`\n`);
        break;
      case 'code-result':
        appendText(`\n\`\`\`\n${p.output}\n\`\`\`\n`);
        break;
      case 'image':
        if (p.source.kind === 'base64') {
          message = undefined;
          items.push({
            id: opts.ids.newId('ig'),
            type: 'image_generation_call',
            status: 'completed',
            result: p.source.data,
          });
        } else appendText(mediaReference(p.source));
        break;
      case 'file':
        appendText(mediaReference(p.source));
        break;
      case 'tool-call':
        message = undefined;
        items.push(
          identityOf(p.name, opts.toolIdentities)?.custom
            ? {
                id: opts.ids.newId('ctc'),
                type: 'custom_tool_call',
                status: 'completed',
                call_id: p.id,
                input: customInput(p.args),
                ...wireToolName(p.name, opts.toolIdentities),
              }
            : {
                id: opts.ids.newId('fc'),
                type: 'function_call',
                status: 'completed',
                arguments: p.args,
                call_id: p.id,
                ...wireToolName(p.name, opts.toolIdentities),
              },
        );
        break;
      case 'reasoning':
        message = undefined;
        items.push(reasoningItem(p, opts));
        break;
      case 'tool-result':
        // Results of the client's own tools are input, never model output: nothing to show.
        break;
      case 'hosted-call':
        message = undefined;
        calls.set(p.id, webSearchCallOf(opts.ids.newId('ws'), p));
        items.push(calls.get(p.id)!);
        break;
      case 'hosted-result': {
        const call = calls.get(p.callId);
        if (call) completeWebSearchCall(call, p);
        break;
      }
      default:
        assertNever(p, 'part');
    }
  }
  return items;
}

/** Media a message item cannot hold is named in the text, on a line of its own. */
function mediaReference(s: MediaSource): string {
  switch (s.kind) {
    case 'url':
      return `\n${s.url}\n`;
    case 'file-id':
      return `\n[file ${s.fileId}]\n`;
    case 'text':
      return `\n${s.text}\n`;
    case 'base64':
      return `\n[${s.mediaType} attachment]\n`;
    default:
      return assertNever(s, 'media source');
  }
}

/** The reasoning item id: the original one for OpenAI reasoning (encrypted_content is bound to it). */
export function reasoningItemId(p: Pick<ReasoningPart, 'origin' | 'signature'>, ids: IdSource): string {
  return p.origin === 'openai-responses' && isReasoningItemId(p.signature) ? p.signature : ids.newId('rs');
}

function reasoningItem(p: ReasoningPart, opts: ItemOptions): ReasoningItem {
  const item: ReasoningItem = {
    id: reasoningItemId(p, opts.ids),
    type: 'reasoning',
    summary: p.text ? [{ type: 'summary_text', text: p.text }] : [],
  };
  // encrypted_content is returned only when `include` asks for 'reasoning.encrypted_content'.
  if (opts.includeEncrypted) item.encrypted_content = encryptedContentOf(p);
  return item;
}

/**
 * OpenAI's own encrypted content as it came. Another provider's signature or redacted thinking
 * is sealed into it (reasoning-envelope.ts): a stateless client replays the item, and the
 * conversation can continue on the provider that produced the reasoning.
 */
export function encryptedContentOf(p: ReasoningPart): string | null {
  if (p.origin === 'openai-responses') return p.encrypted ?? null;
  return hasOpaque(p) ? sealReasoning(p, false) : null;
}

/**
 * IR citations → annotations. A citation without character offsets covers its whole text part.
 * Document citations (Anthropic) have no Responses equivalent and are left out.
 */
export function annotationOf(c: Citation, offset: number, length: number): Annotation | undefined {
  switch (c.kind) {
    case 'url':
      return {
        type: 'url_citation',
        start_index: offset + (c.start ?? 0),
        end_index: offset + (c.end ?? length),
        title: c.title ?? '',
        url: c.url,
      };
    case 'file':
      return { type: 'file_citation', file_id: c.fileId, index: c.index ?? offset };
    case 'document':
      return undefined;
    default:
      return assertNever(c, 'citation');
  }
}
