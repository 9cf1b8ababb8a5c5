// A misbehaving upstream for resilience tests: a node:http server on loopback speaking OpenAI Chat
// Completions (`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`) byte for
// byte like test/emulators/openai-chat-upstream.ts and anthropic-upstream.ts, whose replies can be
// scripted faults: error statuses (429 with Retry-After, 500, 503), a reset socket, a stall before
// the headers, a stall or a cut after some stream chunks, malformed SSE. Unscripted requests get a
// normal answer echoing the last user text. Also here: an address that refuses connections and one
// that never completes them (connect timeouts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { sendJson, type Json, words, tokens } from './emulator-server.ts';

export type Fault =
  /**
   * A normal answer; `chunkDelayMs` spaces the stream chunks out; `pauseAfterChunks` holds the
   * stream after that many chunks until `resume()` (a long-running stream a test controls);
   * `inputTokens`: the prompt's tokens the usage reports (5 by default). A JSON answer (not
   * streamed) with `pauseAfterChunks` goes out in two chunks, its halves, and is held after that
   * many (0: before its headers) until `resume()`: a slow upstream a test controls, without timers.
   */
  | { kind: 'ok'; text?: string; chunkDelayMs?: number; pauseAfterChunks?: number; inputTokens?: number }
  /** An error status in the format's own error body; `retryAfter` is the Retry-After header as sent. */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** The socket is destroyed without an answer. */
  | { kind: 'reset' }
  /** Nothing is sent, not even headers, until the client gives up. */
  | { kind: 'stall-headers' }
  /** Headers and `afterChunks` stream chunks (none for JSON), then silence until the client gives up. */
  | { kind: 'stall-body'; afterChunks: number }
  /** Headers and `afterChunks` stream chunks, then the socket is destroyed. */
  | { kind: 'cut'; afterChunks: number }
  /** Headers and `afterChunks` stream chunks, then a `data:` line that is not JSON, then the stream ends. */
  | { kind: 'malformed'; afterChunks: number };

export type FaultRequest = { path: string; body: Record<string, unknown>; at: number };

export type FaultUpstream = {
  /** base_url for an `openai` provider (ends in /v1). */
  openaiUrl: string;
  /** base_url for an `anthropic` provider. */
  anthropicUrl: string;
  requests: FaultRequest[];
  /** Queues faults for the next requests, in order. */
  script(...faults: Fault[]): void;
  reset(): void;
  /** Lets paused streams go on. */
  resume(): void;
  /** Resolves once `n` requests have arrived (bounded wait). */
  waitForRequests(n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startFaultUpstream(): Promise<FaultUpstream> {
  const requests: FaultRequest[] = [];
  const queue: Fault[] = [];
  const sockets = new Set<Socket>();
  let paused: Array<() => void> = [];
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Json = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch {
      // recorded as empty
    }
    const path = (req.url ?? '/').split('?')[0];
    requests.push({ path, body, at: Date.now() });
    const format = path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : undefined;
    if (!format) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
      return;
    }
    const fault = queue.shift() ?? { kind: 'ok' };
    const text = (fault.kind === 'ok' && fault.text) || lastUserText(body);
    const stream = body.stream === true;
    const input = (fault.kind === 'ok' && fault.inputTokens) || 5;
    const frames =
      format === 'openai'
        ? openaiFrames(String(body.model), text, body)
        : anthropicFrames(String(body.model), text, input);
    const json =
      format === 'openai'
        ? openaiJson(String(body.model), text, input)
        : anthropicJson(String(body.model), text, input);
    const sse = (): void =>
      void res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    switch (fault.kind) {
      case 'ok': {
        if (!stream) {
          if (fault.pauseAfterChunks === undefined) return sendJson(res, 200, json);
          const body = Buffer.from(JSON.stringify(json));
          const halves = [body.subarray(0, body.length >> 1), body.subarray(body.length >> 1)];
          for (const [i, half] of halves.entries()) {
            if (i === fault.pauseAfterChunks) await new Promise<void>((r) => paused.push(r));
            // A caller that left while the answer was held gets no more of it.
            if (res.destroyed) return;
            if (i === 0)
              res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
            res.write(half);
          }
          res.end();
          return;
        }
        sse();
        for (const [i, f] of frames.entries()) {
          if (res.destroyed) return;
          if (i === fault.pauseAfterChunks) await new Promise<void>((r) => paused.push(r));
          res.write(f);
          if (fault.chunkDelayMs) await new Promise((r) => setTimeout(r, fault.chunkDelayMs));
        }
        res.end();
        return;
      }
      case 'status': {
        const headers: Record<string, string> =
          fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {};
        const message = fault.message ?? `emulated ${fault.status}`;
        const errBody =
          format === 'openai'
            ? {
                error: {
                  message,
                  type: fault.status === 429 ? 'rate_limit_error' : 'server_error',
                  param: null,
                  code: null,
                },
              }
            : {
                type: 'error',
                error: {
                  type:
                    fault.status === 429
                      ? 'rate_limit_error'
                      : fault.status === 529 || fault.status === 503
                        ? 'overloaded_error'
                        : 'api_error',
                  message,
                },
              };
        return sendJson(res, fault.status, errBody, headers);
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'stall-headers':
        return; // the client times out and closes; close() ends it otherwise
      case 'stall-body':
      case 'cut':
      case 'malformed': {
        if (!stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.flushHeaders();
          if (fault.kind === 'cut') req.socket.destroy();
          if (fault.kind === 'malformed') res.end('{"id": oops');
          return;
        }
        sse();
        for (const f of frames.slice(0, fault.afterChunks)) res.write(f);
        if (fault.kind === 'cut') setTimeout(() => req.socket.destroy(), 20);
        if (fault.kind === 'malformed') res.end('data: {"choices": [oops\n\n');
        if (fault.kind === 'stall-body' && fault.afterChunks === 0) res.flushHeaders();
        return;
      }
      default: {
        const never: never = fault;
        return never;
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...faults) => void queue.push(...faults),
    resume: () => {
      const p = paused;
      paused = [];
      for (const r of p) r();
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    async waitForRequests(n, ms = 10_000) {
      const end = Date.now() + ms;
      while (requests.length < n) {
        if (Date.now() > end) throw new Error(`expected ${n} upstream requests, saw ${requests.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of paused) r();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function lastUserText(body: Json): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const t = (m.content as Json[]).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
      if (t.length > 0) return t.join('\n');
    }
  }
  return 'echo';
}

// OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat-streaming).
function openaiJson(model: string, text: string, input: number): Json {
  return {
    id: 'chatcmpl-fault0001',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: input, completion_tokens: tokens(text), total_tokens: input + tokens(text) },
  };
}

function openaiFrames(model: string, text: string, body: Json): string[] {
  const base = {
    id: 'chatcmpl-fault0001',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const usage = (body.stream_options as Json | undefined)?.include_usage === true;
  const chunk = (delta: Json, finish: string | null = null): string =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(usage ? { usage: null } : {}) })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...words(text).map((w) => chunk({ content: w })),
    chunk({}, 'stop'),
    ...(usage
      ? [
          `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: tokens(text), total_tokens: 5 + tokens(text) } })}\n\n`,
        ]
      : []),
    'data: [DONE]\n\n',
  ];
}

// Anthropic Messages (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
function anthropicJson(model: string, text: string, input: number): Json {
  return {
    id: 'msg_fault0001',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: tokens(text) },
  };
}

function anthropicFrames(model: string, text: string, input: number): string[] {
  const ev = (name: string, data: Json): string =>
    `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  return [
    ev('message_start', {
      message: {
        id: 'msg_fault0001',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...words(text).map((w) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } })),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: tokens(text) },
    }),
    ev('message_stop', {}),
  ];
}

/** A loopback address nothing listens on: connections are refused at once. */
export async function refusedUrl(): Promise<string> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * A loopback address whose connections never complete: a listening socket whose accept queue is
 * full, because the thread that owns it is blocked and never accepts. The kernel then drops
 * further SYNs, so a client waits until its connect timeout.
 */
export async function startBlackhole(): Promise<{ url: string; close(): Promise<void> }> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const net = require('node:net');
     const flag = workerData;
     const s = net.createServer();
     s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(s.address().port);
       // Blocks this thread's event loop, so nothing is ever accepted, until the flag is set.
       while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 50);
       s.close();
     });`,
    { eval: true, workerData: flag },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  // Fill the accept queue: connections that complete until one does not.
  const fillers: Socket[] = [];
  for (let i = 0; i < 16; i++) {
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => {});
    fillers.push(sock);
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300);
      sock.once('connect', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!connected) break;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const s of fillers) s.destroy();
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await worker.terminate();
    },
  };
}
