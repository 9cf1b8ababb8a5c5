// IR system and messages -> Messages request content (https://docs.anthropic.com/en/api/messages).
// Tool results travel in user turns; consecutive same-role turns are merged; reasoning goes back
// only where Anthropic produced it (its signatures are valid nowhere else).
import { hostedPartText } from '../shared/hosted-part-text.ts';
import type {
  CacheHint,
  FilePart,
  ImagePart,
  Message,
  OutputFormat,
  Part,
  Role,
  TextPart,
} from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { WarningSink } from '../shared/chat-adapter.ts';
import { parseJsonObject, type Json } from '../shared/narrow.ts';
import { foldSystemMessages } from '../shared/system-message.ts';
import { imageMediaTypes } from './decode-messages-content.ts';

const FORMAT = 'anthropic-messages';

/** Output `json` without a schema has no Messages equivalent: it is emulated with an instruction. */
export const jsonInstruction = 'Respond with a single valid JSON value and nothing else: no prose, no code fences.';

const cacheOf = (c: CacheHint | undefined): Json =>
  c ? { cache_control: c.ttl ? { type: 'ephemeral', ttl: c.ttl } : { type: 'ephemeral' } } : {};

// Citations are not sent back: they are optional on request blocks and the IR does not keep the
// opaque fields (e.g. encrypted_index) Anthropic would need to accept them.
const textBlock = (p: TextPart): Json | undefined =>
  p.text === '' ? undefined : { type: 'text', text: p.text, ...cacheOf(p.cache) };

export function encodeSystem(system: TextPart[], output: OutputFormat | undefined): Json[] {
  const blocks = system.map(textBlock).filter((b): b is Json => b !== undefined);
  if (output?.type === 'json') blocks.push({ type: 'text', text: jsonInstruction });
  return blocks;
}

function base64Text(data: string, field: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
  } catch {
    throw invalid(field, `${field}: the text file's data is not valid base64`);
  }
}

function imageBlock(p: ImagePart, field: string, warn: WarningSink): Json {
  if (p.detail !== undefined && p.detail !== 'auto')
    warn(`${field}.detail`, `image detail is not supported by ${FORMAT}; dropped`);
  const s = p.source;
  switch (s.kind) {
    case 'base64':
      if (!(imageMediaTypes as readonly string[]).includes(s.mediaType)) {
        throw invalid(
          field,
          `${field}: image type '${s.mediaType}' is not supported by ${FORMAT} (jpeg, png, gif, webp)`,
        );
      }
      return { type: 'image', source: { type: 'base64', media_type: s.mediaType, data: s.data }, ...cacheOf(p.cache) };
    case 'url':
      return { type: 'image', source: { type: 'url', url: s.url }, ...cacheOf(p.cache) };
    case 'file-id':
      return { type: 'image', source: { type: 'file', file_id: s.fileId }, ...cacheOf(p.cache) };
    case 'text':
      throw invalid(field, `${field}: a text source cannot be an image`);
    default:
      return assertNever(s, 'media source');
  }
}

function documentBlock(p: FilePart, field: string, warn: WarningSink): Json {
  const s = p.source;
  const title = p.title ?? p.filename;
  const doc = (source: Json): Json => ({
    type: 'document',
    source,
    ...(title !== undefined ? { title } : {}),
    ...cacheOf(p.cache),
  });
  switch (s.kind) {
    case 'base64':
      if (s.mediaType === 'application/pdf') return doc({ type: 'base64', media_type: s.mediaType, data: s.data });
      if (s.mediaType.startsWith('text/'))
        return doc({ type: 'text', media_type: 'text/plain', data: base64Text(s.data, field) });
      if (s.mediaType.startsWith('image/'))
        return imageBlock({ type: 'image', source: s, ...(p.cache ? { cache: p.cache } : {}) }, field, warn);
      throw invalid(
        field,
        `${field}: file type '${s.mediaType}' is not supported by ${FORMAT} (PDF, plain text, images)`,
      );
    case 'text':
      return doc({ type: 'text', media_type: 'text/plain', data: s.text });
    case 'url':
      if (s.mediaType?.startsWith('image/'))
        return imageBlock({ type: 'image', source: s, ...(p.cache ? { cache: p.cache } : {}) }, field, warn);
      return doc({ type: 'url', url: s.url });
    case 'file-id':
      return doc({ type: 'file', file_id: s.fileId });
    default:
      return assertNever(s, 'media source');
  }
}

const fence = (lang: string, body: string): string => `\`\`\`${lang}\n${body}${body.endsWith('\n') ? '' : '\n'}\`\`\``;

/** One part -> the role its block belongs to and the block (undefined: nothing to send). */
function blockOf(p: Part, role: Role, field: string, msgField: string, warn: WarningSink): [Role, Json | undefined] {
  switch (p.type) {
    case 'text':
      return [role, textBlock(p)];
    case 'image':
      return [role, imageBlock(p, field, warn)];
    case 'file':
      return [role, documentBlock(p, field, warn)];
    case 'reasoning':
      if (p.origin === FORMAT && p.redacted !== undefined)
        return [role, { type: 'redacted_thinking', data: p.redacted, ...cacheOf(p.cache) }];
      if (p.origin === FORMAT && p.signature)
        return [role, { type: 'thinking', thinking: p.text, signature: p.signature, ...cacheOf(p.cache) }];
      warn(
        `${msgField}.reasoning`,
        `reasoning ${p.origin !== FORMAT ? `from '${p.origin}'` : 'without a signature'} cannot be sent to ${FORMAT}; dropped`,
      );
      return [role, undefined];
    case 'tool-call': {
      let input: Json;
      try {
        input = parseJsonObject(p.args, `${field}.arguments`);
      } catch {
        throw invalid(field, `${field}: tool call arguments are not valid JSON`);
      }
      return ['assistant', { type: 'tool_use', id: p.id, name: p.name, input, ...cacheOf(p.cache) }];
    }
    case 'tool-result': {
      const content = p.content
        .map((c, k) => (c.type === 'text' ? textBlock(c) : imageBlock(c, `${field}.content.${k}`, warn)))
        .filter((b): b is Json => b !== undefined);
      return [
        'user',
        {
          type: 'tool_result',
          tool_use_id: p.callId,
          ...(content.length > 0 ? { content } : {}),
          ...(p.isError ? { is_error: true } : {}),
          ...cacheOf(p.cache),
        },
      ];
    }
    // Another provider's executed code has no client-side block here: it is replayed as text.
    case 'code':
      return [role, { type: 'text', text: fence(p.language.toLowerCase(), p.code) }];
    case 'code-result':
      return [role, p.output === '' ? undefined : { type: 'text', text: fence('', p.output) }];
    case 'refusal':
      return [role, p.text === '' ? undefined : { type: 'text', text: p.text }];
    // Anthropic's own server-tool blocks need its encrypted content, which another runner lacks.
    case 'hosted-call':
    case 'hosted-result':
      return [role, { type: 'text', text: hostedPartText(p) }];
    default:
      return assertNever(p, 'part');
  }
}

/**
 * `keepSystem`: the upstream takes mid-conversation `role: system` messages (the client asked for
 * the beta that has them); otherwise they are folded into user turns (adapters/shared/system-message.ts).
 */
export function encodeMessages(messages: Message[], warn: WarningSink, keepSystem = false): Json[] {
  const turns: Array<{ role: Role | 'system'; content: Json[] }> = [];
  (keepSystem ? messages : foldSystemMessages(messages, FORMAT, warn)).forEach((m, i) => {
    if (m.role === 'system') {
      // Its own message, never merged: it is an instruction at this point of the conversation.
      const content = m.parts.map(textBlock).filter((b): b is Json => b !== undefined);
      if (content.length > 0) turns.push({ role: 'system', content });
      return;
    }
    m.parts.forEach((p, j) => {
      const [role, block] = blockOf(p, m.role, `messages.${i}.content.${j}`, `messages.${i}`, warn);
      if (block === undefined) return;
      const last = turns.at(-1);
      if (last && last.role === role) last.content.push(block);
      else turns.push({ role, content: [block] });
    });
  });
  // In a user turn answering tool calls, tool_result blocks must come before any other content
  // (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks).
  for (const t of turns) {
    if (t.role !== 'user') continue;
    const results = t.content.filter((b) => b.type === 'tool_result');
    if (results.length > 0) t.content = [...results, ...t.content.filter((b) => b.type !== 'tool_result')];
  }
  return turns;
}
