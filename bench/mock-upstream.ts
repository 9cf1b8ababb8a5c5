// A zero-cost upstream for benchmarks, speaking Anthropic Messages (/v1/messages), OpenAI Chat
// Completions (/v1/chat/completions, and Azure's /openai/deployments/D/chat/completions), OpenAI Responses (/v1/responses) and Gemini
// (/v1beta/models/M:generateContent, :streamGenerateContent?alt=sse). Raw node:http and
// precomputed bodies (mock-bodies.ts): the request body is only scanned for `"stream":true`, never
// parsed, so the mock is never the bottleneck it is meant to measure around.
//
//   node bench/mock-upstream.ts [--port 0] [--latency-ms 0] [--chunks 20] [--interval-ms 0]
//
// prints `MOCK_LISTENING <port>`. `GET /__stats` answers (and resets) how many requests, streams
// and new connections it served, and the gaps between its own chunk writes: the reference a
// soak compares the client's inter-arrival times against.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildMockAnswers, type MockAnswer } from './mock-bodies.ts';
import { Samples } from './stats.ts';
import type { WireFormat } from './wire-requests.ts';

export type MockOptions = {
  port?: number;
  /** Time before the response headers (and the first chunk). */
  latencyMs: number;
  /** Text chunks per stream; each is one socket write. */
  chunks: number;
  /** Time between chunk writes; 0 = one event-loop turn, so each chunk is still its own write. */
  intervalMs: number;
};

export type MockStats = {
  requests: number;
  streams: number;
  connections: number;
  gaps: { count: number; p50: number; p99: number; max: number };
};

export type MockUpstream = { port: number; url: string; close(): Promise<void> };

const streamFlag = Buffer.from('"stream":true');
const usageFlag = Buffer.from('"include_usage":true');

/** Azure OpenAI's Chat Completions paths (a deployment's, or the v1 API's): OpenAI's body and answers. */
const azureChat = /^\/openai\/(deployments\/[^/]+|v1)\/chat\/completions(\?|$)/;

function formatOf(url: string): WireFormat | undefined {
  if (url.startsWith('/v1/messages')) return 'messages';
  if (url.startsWith('/v1/chat/completions') || azureChat.test(url)) return 'chat';
  if (url.startsWith('/v1/responses')) return 'responses';
  if (url.includes(':generateContent') || url.includes(':streamGenerateContent')) return 'gemini';
  return undefined;
}

export function startMockUpstream(opts: MockOptions): Promise<MockUpstream> {
  const answers = buildMockAnswers(opts.chunks);
  let requests = 0;
  let streams = 0;
  // New TCP connections: a client that does not keep its upstream connections alive shows here.
  let connections = 0;
  let gaps = new Samples();

  const sendStream = (res: ServerResponse, frames: Buffer[]): void => {
    streams++;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const t0 = performance.now();
    let last = t0;
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      const now = performance.now();
      if (i > 0 && opts.intervalMs > 0) gaps.push(now - last);
      last = now;
      const frame = frames[i++];
      if (i === frames.length) return void res.end(frame);
      res.write(frame);
      // Scheduled against the start, not the previous write, so timer lateness does not accumulate.
      if (opts.intervalMs > 0) setTimeout(next, Math.max(0, t0 + i * opts.intervalMs - performance.now()));
      else setImmediate(next);
    };
    next();
  };

  const answer = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    requests++;
    const url = req.url ?? '/';
    const format = formatOf(url);
    if (req.method !== 'POST' || !format) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
    }
    const a: MockAnswer = answers[format];
    const stream = format === 'gemini' ? url.includes(':streamGenerateContent') : body.includes(streamFlag);
    if (stream) return sendStream(res, a.streamWithUsage && body.includes(usageFlag) ? a.streamWithUsage : a.stream);
    res.writeHead(200, { 'content-type': a.contentType, 'content-length': a.json.length });
    res.end(a.json);
  };

  const server = createServer({ keepAliveTimeout: 120_000, requestTimeout: 0 }, (req, res) => {
    if (req.method === 'GET' && req.url === '/__stats') {
      const [p50, p99] = gaps.percentiles(50, 99);
      const stats: MockStats = {
        requests,
        streams,
        connections,
        gaps: { count: gaps.count, p50, p99, max: gaps.max() },
      };
      requests = 0;
      streams = 0;
      connections = 0;
      gaps = new Samples();
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(stats));
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      if (opts.latencyMs > 0) setTimeout(() => answer(req, res, body), opts.latencyMs);
      else answer(req, res, body);
    });
  });
  server.maxRequestsPerSocket = 0;
  server.on('connection', () => connections++);
  return new Promise((resolve) => {
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'latency-ms': { type: 'string', default: '0' },
      chunks: { type: 'string', default: '20' },
      'interval-ms': { type: 'string', default: '0' },
    },
  });
  const mock = await startMockUpstream({
    port: Number(values.port),
    latencyMs: Number(values['latency-ms']),
    chunks: Number(values.chunks),
    intervalMs: Number(values['interval-ms']),
  });
  process.stdout.write(`MOCK_LISTENING ${mock.port}\n`);
  const stop = (): void => void mock.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
