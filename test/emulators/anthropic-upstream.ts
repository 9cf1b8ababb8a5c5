// An Anthropic Messages upstream on loopback, speaking the wire format byte for byte:
// `POST /v1/messages` answers a Message JSON object, or with `stream: true` an SSE stream of
// `event: <name>\ndata: <json>\n\n` frames in the real order (message_start, content_block_start,
// ping, content_block_delta..., content_block_stop, message_delta, message_stop;
// https://docs.anthropic.com/en/docs/build-with-claude/streaming). Errors use the real body
// `{type: 'error', error: {type, message}, request_id}` (https://docs.anthropic.com/en/api/errors).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertNever } from '../../src/ir/stream-event.ts';
import {
  cutAfter,
  isObject,
  jsonSenderWithId,
  openEventStream,
  startScripted,
  tokens,
  words,
  writeHalf,
  type Json,
  type ScriptedRequest,
} from './emulator-server.ts';
import type { Emulator, Reply } from './emulator-types.ts';

/** One content block of an answer, with the pieces it streams in. */
type Block =
  | { type: 'text'; text: string; chunks: string[] }
  | { type: 'thinking'; thinking: string; signature: string; chunks: string[] }
  | { type: 'tool_use'; id: string; name: string; args: string; argChunks: string[] };
/** `stopReason` is usually end_turn / tool_use; a scripted `stop` reply sets any word. */
type Answer = { blocks: Block[]; stopReason: string };

const base62 = (n: number): string =>
  randomBytes(n * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .padEnd(n, 'x')
    .slice(0, n);
const randomId = (prefix: string): string => `${prefix}01${base62(22)}`;

export const startAnthropicUpstream = (): Promise<Emulator> => startScripted(handle);

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  { body, recorded, next }: ScriptedRequest,
): Promise<void> {
  const path = recorded.path;
  if (req.method === 'POST' && path.split('?')[0] === '/v1/messages/count_tokens') return countTokens(req, res, body);
  if (req.method !== 'POST' || path.split('?')[0] !== '/v1/messages') return sendError(res, 404, 'Not Found');
  if (!req.headers['x-api-key'] && !req.headers.authorization)
    return sendError(res, 401, 'x-api-key header is required');
  if (!req.headers['anthropic-version']) return sendError(res, 400, 'anthropic-version: header is required');
  if (!isObject(body)) return sendError(res, 400, 'There was an error parsing the body of your request');
  if (typeof body.model !== 'string') return sendError(res, 400, 'model: Field required');
  if (typeof body.max_tokens !== 'number') return sendError(res, 400, 'max_tokens: Field required');
  if (!Array.isArray(body.messages)) return sendError(res, 400, 'messages: Field required');

  const reply = next() ?? { kind: 'text', text: lastUserText(body.messages) };
  const ctx: Ctx = {
    model: body.model,
    id: randomId('msg_'),
    inputTokens: tokens(JSON.stringify([body.system ?? '', body.messages, body.tools ?? []])),
  };
  const stream = body.stream === true;
  switch (reply.kind) {
    case 'error':
      return sendError(res, reply.status, reply.message, reply.retryAfter);
    case 'cut':
      return cut(res, reply.text, stream, ctx);
    default: {
      const answer = answerOf(reply);
      return stream ? sendStream(res, answer, ctx) : sendJson(res, 200, message(answer, ctx));
    }
  }
}

/** The fields count_tokens takes (https://docs.anthropic.com/en/api/messages-count-tokens); others are refused like the API does. */
const countFields = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'cache_control',
  'speed',
  'context_management',
  'mcp_servers',
]);

/** The emulator's count: about 4 characters a token over system, messages and tools. */
export const anthropicCountOf = (body: Json): number =>
  tokens(JSON.stringify([body.system ?? '', body.messages, body.tools ?? []]));

function countTokens(req: IncomingMessage, res: ServerResponse, body: unknown): void {
  if (!req.headers['x-api-key'] && !req.headers.authorization)
    return sendError(res, 401, 'x-api-key header is required');
  if (!req.headers['anthropic-version']) return sendError(res, 400, 'anthropic-version: header is required');
  if (!isObject(body)) return sendError(res, 400, 'There was an error parsing the body of your request');
  const extra = Object.keys(body).find((k) => !countFields.has(k));
  if (extra) return sendError(res, 400, `${extra}: Extra inputs are not permitted`);
  if (typeof body.model !== 'string') return sendError(res, 400, 'model: Field required');
  if (!Array.isArray(body.messages)) return sendError(res, 400, 'messages: Field required');
  sendJson(res, 200, { input_tokens: anthropicCountOf(body) });
}

const textOf = (content: unknown): string[] => {
  if (typeof content === 'string') return content === '' ? [] : [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b): string[] => {
    if (!isObject(b)) return [];
    if (b.type === 'text' && typeof b.text === 'string') return [b.text];
    if (b.type === 'tool_result') return textOf(b.content);
    return [];
  });
};

/** With nothing scripted the emulator echoes the last user text (tool results included). */
function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isObject(m) || m.role !== 'user') continue;
    const texts = textOf(m.content);
    if (texts.length > 0) return texts.join('\n');
  }
  return 'echo';
}

function answerOf(reply: Exclude<Reply, { kind: 'error' } | { kind: 'cut' }>): Answer {
  switch (reply.kind) {
    case 'text':
      return {
        blocks: [{ type: 'text', text: reply.text, chunks: reply.chunks ?? words(reply.text) }],
        stopReason: 'end_turn',
      };
    case 'tool': {
      const blocks: Block[] = reply.text ? [{ type: 'text', text: reply.text, chunks: words(reply.text) }] : [];
      const half = Math.ceil(reply.args.length / 2);
      const argChunks = reply.argChunks ?? [reply.args.slice(0, half), reply.args.slice(half)].filter((s) => s !== '');
      blocks.push({
        type: 'tool_use',
        id: reply.id ?? randomId('toolu_'),
        name: reply.name,
        args: reply.args,
        argChunks,
      });
      return { blocks, stopReason: 'tool_use' };
    }
    case 'thinking':
      return {
        blocks: [
          { type: 'thinking', thinking: reply.thinking, signature: reply.signature, chunks: words(reply.thinking) },
          { type: 'text', text: reply.text, chunks: words(reply.text) },
        ],
        stopReason: 'end_turn',
      };
    case 'stop':
      return { blocks: [{ type: 'text', text: reply.text, chunks: words(reply.text) }], stopReason: reply.word };
    default:
      return assertNever(reply, 'reply');
  }
}

type Ctx = { model: string; id: string; inputTokens: number };

const outputTokens = (a: Answer): number =>
  a.blocks.reduce((n, b) => n + tokens(b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : b.args), 0);

/** The usage object as the API writes it (key order included). */
const usage = (ctx: Ctx, output: number): Json => ({
  input_tokens: ctx.inputTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: output,
  service_tier: 'standard',
});

function finalBlock(b: Block): Json {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'thinking':
      return { type: 'thinking', thinking: b.thinking, signature: b.signature };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: JSON.parse(b.args) as unknown };
    default:
      return assertNever(b, 'block');
  }
}

function message(a: Answer, ctx: Ctx): Json {
  return {
    id: ctx.id,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content: a.blocks.map(finalBlock),
    stop_reason: a.stopReason,
    stop_sequence: null,
    usage: usage(ctx, outputTokens(a)),
  };
}

const frame = (event: string, data: Json): string =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
/** The real service writes ping with a space after the colon. */
const PING = 'event: ping\ndata: {"type": "ping"}\n\n';

const messageStart = (ctx: Ctx): string =>
  frame('message_start', {
    message: {
      id: ctx.id,
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(ctx, 1),
    },
  });

const openStream = (res: ServerResponse): ((s: string) => Promise<void>) =>
  openEventStream(res, { 'request-id': randomId('req_') });

function blockFrames(b: Block, index: number): string[] {
  const delta = (d: Json): string => frame('content_block_delta', { index, delta: d });
  switch (b.type) {
    case 'text':
      return [
        frame('content_block_start', { index, content_block: { type: 'text', text: '' } }),
        ...b.chunks.map((text) => delta({ type: 'text_delta', text })),
      ];
    case 'thinking':
      return [
        frame('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        ...b.chunks.map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: b.signature }),
      ];
    case 'tool_use':
      // The API opens tool input with an empty piece before the real ones.
      return [
        frame('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }),
        ...['', ...b.argChunks].map((partial_json) => delta({ type: 'input_json_delta', partial_json })),
      ];
    default:
      return assertNever(b, 'block');
  }
}

async function sendStream(res: ServerResponse, a: Answer, ctx: Ctx): Promise<void> {
  const write = openStream(res);
  await write(messageStart(ctx));
  for (const [index, b] of a.blocks.entries()) {
    const [start, ...deltas] = blockFrames(b, index);
    await write(start);
    if (index === 0) await write(PING);
    for (const d of deltas) await write(d);
    await write(frame('content_block_stop', { index }));
  }
  await write(
    frame('message_delta', {
      delta: { stop_reason: a.stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens(a) },
    }),
  );
  res.end(frame('message_stop', {}));
}

/** The first bytes of an answer, then a dead socket: an upstream failing mid-response. */
function cut(res: ServerResponse, text: string, stream: boolean, ctx: Ctx): Promise<void> {
  return cutAfter(res, () => {
    if (!stream)
      return writeHalf(
        res,
        JSON.stringify(message({ blocks: [{ type: 'text', text, chunks: [text] }], stopReason: 'end_turn' }, ctx)),
      );
    openStream(res);
    res.write(messageStart(ctx));
    res.write(frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    res.write(frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
  });
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function sendError(res: ServerResponse, status: number, message?: string, retryAfter?: number): void {
  const type = errorTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const requestId = randomId('req_');
  const headers: Record<string, string> = { 'request-id': requestId };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (status === 529 || status === 503) headers['x-should-retry'] = 'true';
  sendJson(
    res,
    status,
    {
      type: 'error',
      error: { type, message: message ?? (status >= 500 ? 'Internal server error' : 'Error') },
      request_id: requestId,
    },
    headers,
  );
}

/** Every answer names its request, as the API's do. */
const sendJson = jsonSenderWithId('request-id', () => randomId('req_'));
