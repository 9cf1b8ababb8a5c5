// An OpenAI Chat Completions upstream on loopback, speaking the wire format byte for byte:
// `POST /v1/chat/completions` answers a `chat.completion` JSON object, or with `stream: true` an
// SSE stream of `data: {chat.completion.chunk}` lines, the finish chunk, the usage chunk when
// `stream_options.include_usage` is set, then `data: [DONE]`
// (https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
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

/** What one answer consists of, before it is framed as JSON or as chunks. */
type Answer = {
  reasoning?: string;
  text?: string;
  textChunks: string[];
  tool?: { id: string; name: string; args: string; argChunks: string[] };
  finishReason?: string;
  /** A scripted usage object in place of the counted one; null: none is sent. */
  usage?: Json | null;
};

const randomId = (prefix: string, n = 24): string =>
  `${prefix}${randomBytes(n).toString('base64url').replace(/[-_]/g, 'x').slice(0, n)}`;

/**
 * The Chat Completions dialect of an OpenAI-compatible server the emulator speaks
 * (docs/providers.md, "OpenAI-compatible servers"): `openai` is OpenAI's own, with DeepSeek's
 * `reasoning_content` for scripted thinking; `vllm` and `deepseek` answer reasoning in
 * `reasoning_content`, `ollama` and `openrouter` in `reasoning`; Ollama sends a tool call whole in
 * one delta and ends it with `stop`; DeepSeek counts cache hits in `prompt_cache_hit_tokens`;
 * OpenRouter sends `: OPENROUTER PROCESSING` comments and a `cost` in its usage.
 */
export type ChatDialect = 'openai' | 'vllm' | 'ollama' | 'deepseek' | 'openrouter';

export const startOpenAIChatUpstream = (dialect: ChatDialect = 'openai'): Promise<Emulator> =>
  startScripted((req, res, r) => handle(req, res, r, dialect), '/v1');

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  { body, recorded, next }: ScriptedRequest,
  dialect: ChatDialect,
): Promise<void> {
  const path = recorded.path;
  if (req.method !== 'POST' || path.split('?')[0] !== '/v1/chat/completions') {
    return sendError(res, 404, `Invalid URL (${req.method} ${path})`);
  }
  if (!isObject(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return sendError(
      res,
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
    );
  }
  const reply = next() ?? { kind: 'text', text: lastUserText(body.messages) };
  const stream = body.stream === true;
  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  const promptTokens = tokens(JSON.stringify(body.messages));
  const ctx = {
    model: body.model,
    id: randomId('chatcmpl-', 29),
    created: Math.floor(Date.now() / 1000),
    promptTokens,
    includeUsage,
    dialect,
  };
  switch (reply.kind) {
    case 'error':
      return sendError(res, reply.status, reply.message, reply.retryAfter);
    case 'cut':
      return cut(res, reply.text, stream, ctx);
    default: {
      const answer = answerOf(reply);
      return stream ? sendStream(res, answer, ctx) : sendJson(res, 200, completion(answer, ctx));
    }
  }
}

/** With nothing scripted the emulator echoes the last user (or tool result) text. */
function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'tool')) continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const texts = m.content.flatMap((p) =>
        isObject(p) && p.type === 'text' && typeof p.text === 'string' ? [p.text] : [],
      );
      if (texts.length > 0) return texts.join('\n');
    }
  }
  return 'echo';
}

function answerOf(reply: Exclude<Reply, { kind: 'error' } | { kind: 'cut' }>): Answer {
  switch (reply.kind) {
    case 'text':
      return { text: reply.text, textChunks: reply.chunks ?? words(reply.text), usage: reply.usage };
    case 'tool': {
      const tool = {
        id: reply.id ?? randomId('call_'),
        name: reply.name,
        args: reply.args,
        argChunks: reply.argChunks ?? [reply.args],
      };
      return { text: reply.text, textChunks: reply.text ? words(reply.text) : [], tool };
    }
    case 'thinking':
      // Compatible servers (DeepSeek, vLLM) return reasoning as `reasoning_content`; the
      // signature has no Chat Completions field.
      return { reasoning: reply.thinking, text: reply.text, textChunks: words(reply.text) };
    case 'stop':
      return { text: reply.text, textChunks: words(reply.text), finishReason: reply.word };
    default:
      return assertNever(reply, 'reply');
  }
}

const finishOf = (a: Answer, d: ChatDialect = 'openai'): string =>
  a.finishReason ?? (a.tool && d !== 'ollama' ? 'tool_calls' : 'stop');

type Ctx = {
  model: string;
  id: string;
  created: number;
  promptTokens: number;
  includeUsage: boolean;
  dialect: ChatDialect;
};

/** The field a dialect returns reasoning text in. */
const reasoningField = (d: ChatDialect): string =>
  d === 'ollama' || d === 'openrouter' ? 'reasoning' : 'reasoning_content';

function usageOf(a: Answer, ctx: Ctx): Json {
  if (a.usage) return a.usage;
  const reasoning = a.reasoning ? tokens(a.reasoning) : 0;
  const completion = tokens((a.text ?? '') + (a.tool?.args ?? '')) + reasoning;
  if (ctx.dialect === 'deepseek')
    return {
      prompt_tokens: ctx.promptTokens,
      completion_tokens: completion,
      total_tokens: ctx.promptTokens + completion,
      prompt_cache_hit_tokens: Math.floor(ctx.promptTokens / 2),
      prompt_cache_miss_tokens: ctx.promptTokens - Math.floor(ctx.promptTokens / 2),
      completion_tokens_details: { reasoning_tokens: reasoning },
    };
  if (ctx.dialect === 'openrouter')
    return {
      prompt_tokens: ctx.promptTokens,
      completion_tokens: completion,
      total_tokens: ctx.promptTokens + completion,
      cost: 0.000123,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoning },
    };
  return {
    prompt_tokens: ctx.promptTokens,
    completion_tokens: completion,
    total_tokens: ctx.promptTokens + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function completion(a: Answer, ctx: Ctx): Json {
  const message: Json = { role: 'assistant', content: a.text ?? null, refusal: null, annotations: [] };
  if (a.reasoning) message[reasoningField(ctx.dialect)] = a.reasoning;
  if (a.tool)
    message.tool_calls = [{ id: a.tool.id, type: 'function', function: { name: a.tool.name, arguments: a.tool.args } }];
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(a, ctx.dialect) }],
    ...(a.usage === null ? {} : { usage: usageOf(a, ctx) }),
    service_tier: 'default',
    system_fingerprint: 'fp_polygate_emulator',
  };
}

/** The fields every chunk of one answer opens with, in OpenAI's order. */
const chunkHead = (ctx: Ctx): Json => ({
  id: ctx.id,
  object: 'chat.completion.chunk',
  created: ctx.created,
  model: ctx.model,
  service_tier: 'default',
  system_fingerprint: 'fp_polygate_emulator',
});

/** One chunk as OpenAI frames it: `usage: null` on every chunk once include_usage is on. */
function chunk(ctx: Ctx, delta: Json, finishReason: string | null = null): string {
  const c: Json = {
    ...chunkHead(ctx),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  if (ctx.includeUsage) c.usage = null;
  return `data: ${JSON.stringify(c)}\n\n`;
}

const openStream = (res: ServerResponse): ((s: string) => Promise<void>) =>
  openEventStream(res, { 'x-request-id': randomId('req_', 32) });

async function sendStream(res: ServerResponse, a: Answer, ctx: Ctx): Promise<void> {
  const write = openStream(res);
  // OpenAI's first chunk announces the role: with `content: ""` before text, or with
  // `content: null` and the first tool-call delta when the answer opens with a tool call.
  const opensWithTool = a.tool !== undefined && a.textChunks.length === 0 && !a.reasoning;
  if (ctx.dialect === 'openrouter') await write(': OPENROUTER PROCESSING\n\n');
  if (!opensWithTool) await write(chunk(ctx, { role: 'assistant', content: '', refusal: null }));
  const field = reasoningField(ctx.dialect);
  for (const r of a.reasoning ? words(a.reasoning) : []) await write(chunk(ctx, { [field]: r }));
  for (const t of a.textChunks) await write(chunk(ctx, { content: t }));
  if (a.tool && ctx.dialect === 'ollama') {
    const whole = {
      index: 0,
      id: a.tool.id,
      type: 'function',
      function: { name: a.tool.name, arguments: a.tool.args },
    };
    await write(chunk(ctx, { role: 'assistant', content: '', tool_calls: [whole] }));
  } else if (a.tool) {
    const start = {
      tool_calls: [{ index: 0, id: a.tool.id, type: 'function', function: { name: a.tool.name, arguments: '' } }],
    };
    await write(chunk(ctx, opensWithTool ? { role: 'assistant', content: null, ...start, refusal: null } : start));
    for (const piece of a.tool.argChunks)
      await write(chunk(ctx, { tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  await write(chunk(ctx, {}, finishOf(a, ctx.dialect)));
  if (ctx.includeUsage && a.usage !== null) {
    const u = { ...chunkHead(ctx), choices: [], usage: usageOf(a, ctx) };
    await write(`data: ${JSON.stringify(u)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

/** The first bytes of an answer, then a dead socket: an upstream failing mid-response. */
function cut(res: ServerResponse, text: string, stream: boolean, ctx: Ctx): Promise<void> {
  return cutAfter(res, () => {
    if (!stream) return writeHalf(res, JSON.stringify(completion({ text, textChunks: [text] }, ctx)));
    openStream(res);
    res.write(chunk(ctx, { role: 'assistant', content: '', refusal: null }));
    res.write(chunk(ctx, { content: text }));
  });
}

/** OpenAI's error body and types (https://platform.openai.com/docs/guides/error-codes). */
function sendError(res: ServerResponse, status: number, message?: string, retryAfter?: number): void {
  const [type, code] =
    status === 401
      ? ['invalid_request_error', 'invalid_api_key']
      : status === 404
        ? ['invalid_request_error', 'model_not_found']
        : status === 429
          ? ['requests', 'rate_limit_exceeded']
          : status >= 500
            ? ['server_error', null]
            : ['invalid_request_error', null];
  const headers: Record<string, string> = {};
  if (retryAfter !== undefined) {
    headers['retry-after'] = String(retryAfter);
    headers['retry-after-ms'] = String(retryAfter * 1000);
  }
  sendJson(
    res,
    status,
    {
      error: {
        message: message ?? `The server had an error while processing your request (HTTP ${status}).`,
        type,
        param: null,
        code,
      },
    },
    headers,
  );
}

/** Every answer names its request, as the API's do. */
const sendJson = jsonSenderWithId('x-request-id', () => randomId('req_', 32));
