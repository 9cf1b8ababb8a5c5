// An OpenAI Responses API upstream on loopback, byte for byte like the real one: POST
// /v1/responses answers a response object (pretty-printed JSON, as api.openai.com sends it) or,
// with `stream: true`, `event: <type>` + `data: <json>` frames in the documented order, each with
// a `sequence_number` (https://platform.openai.com/docs/api-reference/responses-streaming).
// Tests script the next replies; with nothing scripted it echoes the last user input text.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readRequest, scriptedReplies, type Json, isObject, tokens } from './emulator-server.ts';
import type { Emulator, Reply } from './emulator-types.ts';

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const newId = (prefix: string): string => `${prefix}_${hex(24)}`;

export async function startOpenAIResponsesUpstream(): Promise<Emulator> {
  const s = scriptedReplies();
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { body, recorded } = await readRequest(req);
    s.requests.push(recorded);
    if (req.method === 'POST' && (req.url ?? '').split('?')[0] === '/v1/responses/input_tokens')
      return inputTokens(res, body);
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/responses') {
      return sendError(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null);
    }
    if (!isObject(body))
      return sendError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    const reply = s.next(recorded) ?? { kind: 'text', text: lastUserText(body) };
    if (reply.kind === 'error') return replyError(res, reply);
    const turn = new Turn(body);
    if (body.stream === true) return turn.stream(res, reply);
    const final = turn.final(reply);
    if (reply.kind === 'cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${hex(16)}` });
      res.write(JSON.stringify(final, null, 2).slice(0, 40));
      res.destroy();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-request-id': `req_${hex(16)}`,
      'openai-processing-ms': '42',
    });
    res.end(JSON.stringify(final, null, 2));
  }

  return { ...s, ...(await listenLoopback(server, '/v1')) };
}

/** The text of the last user turn: a string input, or the last user message's input_text parts. */
function lastUserText(body: Json): string {
  if (typeof body.input === 'string') return body.input;
  if (!Array.isArray(body.input)) return '';
  for (let i = body.input.length - 1; i >= 0; i--) {
    const item: unknown = body.input[i];
    if (!isObject(item) || item.role !== 'user') continue;
    if (typeof item.content === 'string') return item.content;
    if (Array.isArray(item.content)) {
      const texts = item.content
        .filter((c): c is Json => isObject(c) && c.type === 'input_text')
        .map((c) => String(c.text));
      if (texts.length > 0) return texts.join('\n');
    }
  }
  return '';
}

/** The fields `POST /v1/responses/input_tokens` takes; others are refused like the API does. */
const inputTokenFields = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'reasoning',
  'text',
  'truncation',
  'conversation',
  'previous_response_id',
  'parallel_tool_calls',
  'personality',
]);

/** The emulator's count: about 4 characters a token over instructions, input and tools. */
export const responsesCountOf = (body: Json): number =>
  Math.max(1, Math.ceil(JSON.stringify([body.instructions ?? '', body.input ?? '', body.tools ?? []]).length / 4));

function inputTokens(res: ServerResponse, body: unknown): void {
  if (!isObject(body))
    return sendError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
  const extra = Object.keys(body).find((k) => !inputTokenFields.has(k));
  if (extra) return sendError(res, 400, `Unknown parameter: '${extra}'.`, 'invalid_request_error', 'unknown_parameter');
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${hex(16)}` });
  res.end(JSON.stringify({ object: 'response.input_tokens', input_tokens: responsesCountOf(body) }, null, 2));
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${hex(16)}`, ...headers });
  res.end(JSON.stringify({ error: { message, type, param: null, code } }, null, 2));
}

/** The error bodies api.openai.com sends for each status. */
function replyError(res: ServerResponse, r: Extract<Reply, { kind: 'error' }>): void {
  const headers: Record<string, string> = r.retryAfter !== undefined ? { 'retry-after': String(r.retryAfter) } : {};
  const [message, type, code]: [string, string, string | null] =
    r.status === 401
      ? [
          'Incorrect API key provided: sk-test****. You can find your API key at https://platform.openai.com/account/api-keys.',
          'invalid_request_error',
          'invalid_api_key',
        ]
      : r.status === 404
        ? ['The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found']
        : r.status === 429
          ? [
              'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
              'requests',
              'rate_limit_exceeded',
            ]
          : r.status >= 500
            ? ['The server had an error while processing your request. Sorry about that!', 'server_error', null]
            : ['Invalid request.', 'invalid_request_error', null];
  sendError(res, r.status, r.message ?? message, type, code, headers);
}

/** One response: its ids, the echoed request fields, its output items and the event sequence. */
class Turn {
  readonly body: Json;
  readonly id = newId('resp');
  readonly createdAt = Math.floor(Date.now() / 1000);
  #seq = 0;

  constructor(body: Json) {
    this.body = body;
  }

  /** The response object around an output list, echoing the request like the real API. */
  envelope(status: string, output: unknown[], usage: Json | null, incomplete: Json | null = null): Json {
    const b = this.body;
    const reasoning = isObject(b.reasoning) ? b.reasoning : {};
    const tools = Array.isArray(b.tools)
      ? b.tools.map((t) => (isObject(t) && t.type === 'function' ? { description: null, strict: true, ...t } : t))
      : [];
    const out: Json = {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status,
      background: false,
      error: null,
      incomplete_details: incomplete,
      instructions: b.instructions ?? null,
      max_output_tokens: b.max_output_tokens ?? null,
      max_tool_calls: null,
      model: b.model,
      output,
      parallel_tool_calls: b.parallel_tool_calls ?? true,
      previous_response_id: b.previous_response_id ?? null,
      reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
      service_tier: 'default',
      store: b.store ?? true,
      temperature: b.temperature ?? 1,
      text: { format: { type: 'text' }, ...(isObject(b.text) ? b.text : {}) },
      tool_choice: b.tool_choice ?? 'auto',
      tools,
      top_p: b.top_p ?? 1,
      truncation: b.truncation ?? 'disabled',
      usage,
      user: b.user ?? null,
      metadata: b.metadata ?? {},
    };
    return out;
  }

  #includesEncrypted(): boolean {
    return Array.isArray(this.body.include) && this.body.include.includes('reasoning.encrypted_content');
  }

  #items(reply: Exclude<Reply, { kind: 'error' }>): Json[] {
    const message = (text: string): Json => ({
      id: newId('msg'),
      type: 'message',
      status: 'completed',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
      role: 'assistant',
    });
    switch (reply.kind) {
      case 'text':
      case 'cut':
        return [message(reply.text)];
      case 'stop':
        // A response cut short (max_output_tokens, content_filter) leaves its message incomplete.
        return [{ ...message(reply.text), status: 'incomplete' }];
      case 'tool': {
        const call: Json = {
          id: newId('fc'),
          type: 'function_call',
          status: 'completed',
          arguments: reply.args,
          call_id: reply.id ?? `call_${hex(12)}`,
          name: reply.name,
        };
        return reply.text ? [message(reply.text), call] : [call];
      }
      case 'thinking': {
        const rs: Json = {
          id: newId('rs'),
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: reply.thinking }],
        };
        if (this.#includesEncrypted()) rs.encrypted_content = reply.signature;
        return [rs, message(reply.text)];
      }
    }
  }

  #usage(items: Json[], reply: Exclude<Reply, { kind: 'error' }>): Json {
    const input = tokens(JSON.stringify(this.body.input ?? '') + String(this.body.instructions ?? ''));
    const reasoning = reply.kind === 'thinking' ? tokens(reply.thinking) : 0;
    const output = tokens(JSON.stringify(items)) + reasoning;
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: reasoning },
      total_tokens: input + output,
    };
  }

  final(reply: Exclude<Reply, { kind: 'error' }>): Json {
    const items = this.#items(reply);
    return reply.kind === 'stop'
      ? this.envelope('incomplete', items, this.#usage(items, reply), { reason: reply.word })
      : this.envelope('completed', items, this.#usage(items, reply));
  }

  #frame(type: string, fields: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: this.#seq++ })}\n\n`;
  }

  /** The documented event sequence for the reply's items; `cut` stops after the first delta. */
  async stream(res: ServerResponse, reply: Exclude<Reply, { kind: 'error' }>): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': `req_${hex(16)}`,
    });
    // One write per event, each flushed before the next, as a live upstream produces them.
    const send = (frame: string): Promise<void> => new Promise((ok) => res.write(frame, () => ok()));
    const items = this.#items(reply);
    const created = this.envelope('in_progress', [], null);
    await send(this.#frame('response.created', { response: created }));
    await send(this.#frame('response.in_progress', { response: created }));
    for (const [index, item] of items.entries()) {
      for (const frame of this.#itemFrames(index, item, reply)) {
        if (frame === 'cut') {
          await new Promise((ok) => setTimeout(ok, 20));
          res.destroy();
          return;
        }
        await send(frame);
      }
    }
    const final = this.final(reply);
    res.end(
      this.#frame(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
        response: { ...final, output: items },
      }),
    );
  }

  *#itemFrames(index: number, item: Json, reply: Exclude<Reply, { kind: 'error' }>): Generator<string | 'cut'> {
    const at = { item_id: item.id, output_index: index };
    if (item.type === 'message') {
      const part = (item.content as Json[])[0];
      const text = String(part.text);
      yield this.#frame('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      yield this.#frame('response.content_part.added', {
        ...at,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
      const chunks = reply.kind === 'text' && reply.chunks ? reply.chunks : (text.match(/\S+\s*|\s+/g) ?? ['']);
      for (const delta of chunks) {
        yield this.#frame('response.output_text.delta', {
          ...at,
          content_index: 0,
          delta,
          logprobs: [],
          obfuscation: hex(4),
        });
        if (reply.kind === 'cut') yield 'cut';
      }
      yield this.#frame('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] });
      yield this.#frame('response.content_part.done', { ...at, content_index: 0, part });
    } else if (item.type === 'function_call') {
      const args = String(item.arguments);
      yield this.#frame('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      const chunks = reply.kind === 'tool' && reply.argChunks ? reply.argChunks : [args];
      for (const delta of chunks)
        yield this.#frame('response.function_call_arguments.delta', { ...at, delta, obfuscation: hex(4) });
      yield this.#frame('response.function_call_arguments.done', { ...at, name: item.name, arguments: args });
    } else if (item.type === 'reasoning') {
      const summary = item.summary as Json[];
      const { encrypted_content: _encrypted, ...added } = item;
      yield this.#frame('response.output_item.added', { output_index: index, item: { ...added, summary: [] } });
      for (const [k, s] of summary.entries()) {
        const text = String(s.text);
        yield this.#frame('response.reasoning_summary_part.added', {
          ...at,
          summary_index: k,
          part: { type: 'summary_text', text: '' },
        });
        for (const delta of text.match(/\S+\s*|\s+/g) ?? [])
          yield this.#frame('response.reasoning_summary_text.delta', {
            ...at,
            summary_index: k,
            delta,
            obfuscation: hex(4),
          });
        yield this.#frame('response.reasoning_summary_text.done', { ...at, summary_index: k, text });
        yield this.#frame('response.reasoning_summary_part.done', {
          ...at,
          summary_index: k,
          part: { type: 'summary_text', text },
        });
      }
    }
    yield this.#frame('response.output_item.done', { output_index: index, item });
  }
}
