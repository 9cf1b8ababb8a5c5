// Request content blocks -> IR parts, following the block table of
// https://docs.anthropic.com/en/api/messages (content, "Content block types").
// Keys a block does not need are tolerated: clients commonly send a response's content back as
// history, and response blocks carry extra fields (`citations: null`, `caller`, ...). A block type
// the IR has no part for is not an error (docs/open-world.md): this decoder runs only for
// translated routes, whose upstream cannot take it, so it is left out and reported.
import type {
  CacheHint,
  ImagePart,
  MediaSource,
  Part,
  ReasoningPart,
  Role,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  Unmapped,
} from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, obj, oneOf, optBool, optStr, str, type Json } from '../shared/narrow.ts';
import { noteUnmapped, openEnum } from '../shared/open-enum.ts';
import { citationsOfWire } from './messages-citations.ts';
import { hostedPartOfBlock } from './messages-server-tools.ts';

export const imageMediaTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

/**
 * `cache_control: {type: ephemeral, ttl?}`. A cache type newer than polygate is still a request to
 * cache here: read as ephemeral (the only kind every upstream's cache hints can express), warned.
 */
export function cacheOf(v: unknown, field: string, note: UnmappedSink): CacheHint | undefined {
  if (v === undefined || v === null) return undefined;
  const c = obj(v, field);
  openEnum(c.type, ['ephemeral'] as const, `${field}.type`, noteUnmapped(note), () => 'ephemeral');
  const ttl = optStr(c.ttl, `${field}.ttl`);
  return ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
}

/**
 * An image media type: one of the four the API names, or another `image/*` type newer than
 * polygate, passed on for the upstream to take or refuse (an upstream's own 400 names it).
 * Anything that is not an image stays a 400: no API takes it as an image.
 */
function imageMediaType(v: unknown, field: string): string {
  const t = str(v, field);
  if ((imageMediaTypes as readonly string[]).includes(t) || /^image\/[a-z0-9.+-]+$/i.test(t)) return t;
  return oneOf(t, imageMediaTypes, field);
}

const withCache = <T extends object>(part: T, cache: CacheHint | undefined): T => (cache ? { ...part, cache } : part);

export function decodeTextBlock(b: Json, field: string, note: UnmappedSink): TextPart {
  const text = str(b.text, `${field}.text`);
  if (text.length === 0) throw invalid(`${field}.text`, `${field}.text: text content blocks must be non-empty`);
  const citations = citationsOfWire(b.citations);
  return withCache(
    { type: 'text', text, ...(citations ? { citations } : {}) },
    cacheOf(b.cache_control, `${field}.cache_control`, note),
  );
}

function nonEmpty(v: unknown, field: string): string {
  const s = str(v, field);
  if (s.length === 0) throw invalid(field, `${field}: must not be empty`);
  return s;
}

function decodeImage(b: Json, field: string, note: UnmappedSink): ImagePart {
  const f = `${field}.source`;
  const src = obj(b.source, f);
  const kind = oneOf(src.type, ['base64', 'url', 'file'], `${f}.type`);
  let source: MediaSource;
  if (kind === 'base64')
    source = {
      kind: 'base64',
      mediaType: imageMediaType(src.media_type, `${f}.media_type`),
      data: nonEmpty(src.data, `${f}.data`),
    };
  else if (kind === 'url') source = { kind: 'url', url: nonEmpty(src.url, `${f}.url`) };
  else source = { kind: 'file-id', fileId: nonEmpty(src.file_id, `${f}.file_id`) };
  return withCache({ type: 'image', source }, cacheOf(b.cache_control, `${field}.cache_control`, note));
}

function decodeDocument(b: Json, field: string, note: UnmappedSink): Part {
  const f = `${field}.source`;
  const src = obj(b.source, f);
  const kind = oneOf(src.type, ['base64', 'text', 'url', 'file', 'content'], `${f}.type`);
  let source: MediaSource;
  if (kind === 'base64')
    source = {
      kind: 'base64',
      mediaType: oneOf(src.media_type, ['application/pdf'], `${f}.media_type`),
      data: nonEmpty(src.data, `${f}.data`),
    };
  else if (kind === 'text')
    source = {
      kind: 'text',
      mediaType: oneOf(src.media_type, ['text/plain'], `${f}.media_type`),
      text: str(src.data, `${f}.data`),
    };
  else if (kind === 'url') source = { kind: 'url', url: nonEmpty(src.url, `${f}.url`), mediaType: 'application/pdf' };
  else if (kind === 'file') source = { kind: 'file-id', fileId: nonEmpty(src.file_id, `${f}.file_id`) };
  else
    throw invalid(
      `${f}.type`,
      `${f}.type: 'content' document sources are not supported by polygate; send the text as text blocks`,
    );
  // The IR's file part has no place for these; refusing them beats answering without them.
  const citations = b.citations;
  if (citations !== undefined && citations !== null && obj(citations, `${field}.citations`).enabled === true) {
    throw invalid(`${field}.citations`, `${field}.citations: document citations are not supported by polygate`);
  }
  if (b.context !== undefined && b.context !== null)
    throw invalid(`${field}.context`, `${field}.context: document context is not supported by polygate`);
  const title = optStr(b.title, `${field}.title`);
  return withCache(
    { type: 'file', source, ...(title !== undefined ? { title } : {}) },
    cacheOf(b.cache_control, `${field}.cache_control`, note),
  );
}

function decodeToolResult(b: Json, field: string, note: UnmappedSink): ToolResultPart {
  const callId = nonEmpty(b.tool_use_id, `${field}.tool_use_id`);
  const content: Array<TextPart | ImagePart> = [];
  if (typeof b.content === 'string') {
    if (b.content.length > 0) content.push({ type: 'text', text: b.content });
  } else if (b.content !== undefined && b.content !== null) {
    arr(b.content, `${field}.content`).forEach((item, j) => {
      const f = `${field}.content.${j}`;
      const inner = obj(item, f);
      const type = str(inner.type, `${f}.type`);
      if (type === 'text') content.push(decodeTextBlock(inner, f, note));
      else if (type === 'image') content.push(decodeImage(inner, f, note));
      else note({ field: f, message: `'${type}' blocks in a tool result cannot be translated; dropped` });
    });
  }
  const isError = optBool(b.is_error, `${field}.is_error`) ?? false;
  return withCache(
    { type: 'tool-result', callId, content, isError },
    cacheOf(b.cache_control, `${field}.cache_control`, note),
  );
}

/** Blocks that only make sense on one side of the conversation. */
const roleOfBlock = new Map<string, Role>([
  ['tool_result', 'user'],
  ['tool_use', 'assistant'],
  ['thinking', 'assistant'],
  ['redacted_thinking', 'assistant'],
]);

/** Server-side tool blocks: real, but the IR has no part for them yet (reported as such when left out). */
const serverBlocks = new Set([
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'search_result',
]);

/** Reports what a decoder leaves out because the IR cannot carry it. */
export type UnmappedSink = (u: Unmapped) => void;

/** One block; undefined when its type has no IR part (reported through `note`). */
export function decodeBlock(v: unknown, field: string, role: Role, note: UnmappedSink): Part | undefined {
  const b = obj(v, field);
  const type = str(b.type, `${field}.type`);
  const needs = roleOfBlock.get(type);
  if (needs !== undefined && needs !== role)
    throw invalid(`${field}.type`, `${field}.type: '${type}' blocks are only allowed in ${needs} messages`);
  const cache = (): CacheHint | undefined => cacheOf(b.cache_control, `${field}.cache_control`, note);
  switch (type) {
    case 'text':
      return decodeTextBlock(b, field, note);
    case 'image':
      return decodeImage(b, field, note);
    case 'document':
      return decodeDocument(b, field, note);
    case 'tool_use':
      return withCache(toolCallOfBlock(b, field), cache());
    case 'tool_result':
      return decodeToolResult(b, field, note);
    case 'thinking':
    case 'redacted_thinking':
      return withCache(reasoningOfBlock(b, field), cache());
    case 'server_tool_use':
    case 'web_search_tool_result':
    case 'web_fetch_tool_result': {
      // Web search and fetch (polygate's or Anthropic's) reach the upstream as text.
      const part = hostedPartOfBlock(b);
      if (part) return part;
      note({ field, message: `'${type}' blocks of server-run tools cannot be translated; dropped` });
      return undefined;
    }
    default:
      note({
        field,
        message: serverBlocks.has(type)
          ? `'${type}' blocks of server-run tools cannot be translated; dropped`
          : `content block type '${type}' cannot be translated; dropped`,
      });
      return undefined;
  }
}

/** Arguments go on as the JSON text of `input`, which must be an object. */
function toolCallOfBlock(b: Json, field: string): ToolCallPart {
  const input = obj(b.input, `${field}.input`);
  return {
    type: 'tool-call',
    id: nonEmpty(b.id, `${field}.id`),
    name: nonEmpty(b.name, `${field}.name`),
    args: JSON.stringify(input),
  };
}

/** Signatures and redacted data are opaque and valid only on Anthropic: kept byte-exact with their origin. */
function reasoningOfBlock(b: Json, field: string): ReasoningPart {
  if (b.type === 'redacted_thinking')
    return { type: 'reasoning', text: '', redacted: nonEmpty(b.data, `${field}.data`), origin: 'anthropic-messages' };
  const signature = str(b.signature, `${field}.signature`);
  return {
    type: 'reasoning',
    text: str(b.thinking, `${field}.thinking`),
    ...(signature !== '' ? { signature } : {}),
    origin: 'anthropic-messages',
  };
}

/** A message's `content`: a string is one text block. */
export function decodeContent(v: unknown, field: string, role: Role, mayBeEmpty: boolean, note: UnmappedSink): Part[] {
  if (typeof v === 'string') {
    if (v.length > 0) return [{ type: 'text', text: v }];
    if (mayBeEmpty) return [];
    throw invalid(
      field,
      `${field}: all messages must have non-empty content except for an optional final assistant message`,
    );
  }
  const blocks = arr(v, field);
  if (blocks.length === 0 && !mayBeEmpty) {
    throw invalid(
      field,
      `${field}: all messages must have non-empty content except for an optional final assistant message`,
    );
  }
  return blocks.flatMap((b, j) => decodeBlock(b, `${field}.${j}`, role, note) ?? []);
}
