// A Gemini API upstream on loopback, speaking generateContent / streamGenerateContent the way
// generativelanguage.googleapis.com does (https://ai.google.dev/api/generate-content):
// - unary answers are 2-space pretty-printed JSON, `application/json; charset=UTF-8`;
// - `?alt=sse` streams `data: <chunk>\r\n\r\n` frames (CRLF, as Google's front end sends them),
//   each chunk a whole GenerateContentResponse in Google's compact style (`"key": value` pairs
//   joined by `,`), every chunk with usageMetadata and modelVersion, the last with finishReason;
// - without `alt=sse` a stream is one JSON array of chunks;
// - errors are {error: {code, message, status}} with google.rpc status names.
// Both /v1beta and /v1 are served: @google/genai v3 calls /v1 by default.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { assertNever } from '../../src/ir/stream-event.ts';
import { listenLoopback, readRequest, scriptedReplies, type Json, tokens } from './emulator-server.ts';
import type { Emulator, Reply } from './emulator-types.ts';

const route = /^\/(v1beta|v1)\/models\/([^:]+):(generateContent|streamGenerateContent|countTokens)$/;

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const defaultMessages: Record<number, string> = {
  429: 'You exceeded your current quota, please check your plan and billing details.',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
};

/** Google's compact JSON for stream chunks: `{"a": 1,"b": [{"c": "d"}]}`. */
export function googleCompactJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(googleCompactJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const fields = Object.entries(v).filter(([, x]) => x !== undefined);
    return `{${fields.map(([k, x]) => `${JSON.stringify(k)}: ${googleCompactJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function textOf(content: unknown): string {
  const parts = (content as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts)) return '';
  return parts
    .map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .join('');
}

/** The text of the last user turn, for the unscripted echo. */
function lastUserText(body: Json): string {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i] as { role?: unknown };
    if (c.role === undefined || c.role === 'user') return textOf(c);
  }
  return '';
}

/** The emulator's countTokens answer: about 4 characters a token over the contents, system and tools. */
export const geminiCountOf = (req: Json): number =>
  tokens(JSON.stringify([req.contents, req.systemInstruction ?? null, req.tools ?? null]));

function promptTokens(body: Json): number {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  return tokens(contents.map(textOf).join('') + textOf(body.systemInstruction));
}

/** One answer as the parts it streams, chunk by chunk (the unary answer joins them). */
type Plan = { chunks: Json[][]; thoughts: number; finishReason?: string; blockReason?: string };

function plan(reply: Reply): Plan {
  switch (reply.kind) {
    case 'text':
    case 'cut': {
      const pieces = reply.kind === 'text' && reply.chunks ? reply.chunks : (reply.text.match(/\S+\s*|\s+/g) ?? ['']);
      return { chunks: pieces.map((text) => [{ text }]), thoughts: 0 };
    }
    case 'tool': {
      const call: Json = {
        name: reply.name,
        args: reply.args.trim() === '' ? {} : (JSON.parse(reply.args) as unknown),
      };
      if (reply.id !== undefined) call.id = reply.id;
      const chunks: Json[][] = reply.text ? [[{ text: reply.text }]] : [];
      chunks.push([{ functionCall: call }]);
      return { chunks, thoughts: 0 };
    }
    case 'thinking':
      return {
        chunks: [
          [{ text: reply.thinking, thought: true, thoughtSignature: reply.signature }],
          ...(reply.text.match(/\S+\s*/g) ?? ['']).map((text) => [{ text }]),
        ],
        thoughts: tokens(reply.thinking),
      };
    case 'stop':
      // A blocked prompt has no candidate at all: one chunk with promptFeedback only.
      if (reply.blocked) return { chunks: [[]], thoughts: 0, blockReason: reply.word };
      return {
        chunks: (reply.text.match(/\S+\s*|\s+/g) ?? ['']).map((text) => [{ text }]),
        thoughts: 0,
        finishReason: reply.word,
      };
    case 'error':
      return { chunks: [], thoughts: 0 };
    default:
      return assertNever(reply, 'reply');
  }
}

function usage(prompt: number, output: string, thoughts: number, final: boolean): Json {
  const details = [{ modality: 'TEXT', tokenCount: prompt }];
  if (!final) return { promptTokenCount: prompt, totalTokenCount: prompt, promptTokensDetails: details };
  const candidates = tokens(output);
  const u: Json = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + thoughts,
    promptTokensDetails: details,
  };
  if (thoughts > 0) u.thoughtsTokenCount = thoughts;
  return u;
}

export function errorBody(status: number, message: string, retryAfter?: number): Json {
  const error: Json = {
    code: status,
    message,
    status: statusNames[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
  };
  if (status === 429) {
    error.details = [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          },
        ],
      },
      ...(retryAfter !== undefined
        ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` }]
        : []),
    ];
  }
  return { error };
}

export async function startGeminiUpstream(): Promise<Emulator> {
  const s = scriptedReplies();

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=UTF-8',
      server: 'scaffolding on HTTPServer2',
      vary: 'Origin, X-Origin, Referer',
      ...headers,
    });
    res.end(`${JSON.stringify(body, null, 2)}\n`);
  };
  const sendError = (res: ServerResponse, status: number, message: string, retryAfter?: number): void =>
    sendJson(
      res,
      status,
      errorBody(status, message, retryAfter),
      retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {},
    );

  /**
   * https://ai.google.dev/api/tokens#method:-models.counttokens: `contents`, or a
   * `generateContentRequest` naming the model (`models/…`); never both.
   */
  const countTokens = (res: ServerResponse, b: Json): void => {
    const g = b.generateContentRequest as Json | undefined;
    if (g !== undefined && b.contents !== undefined)
      return sendError(res, 400, 'contents and generateContentRequest are mutually exclusive.');
    if (g !== undefined && (typeof g.model !== 'string' || !g.model.startsWith('models/')))
      return sendError(res, 400, '* CountTokensRequest.generate_content_request.model: model is required');
    const req = g ?? b;
    if (!Array.isArray(req.contents) || req.contents.length === 0)
      return sendError(res, 400, '* CountTokensRequest.contents: contents is not specified\n');
    sendJson(res, 200, {
      totalTokens: geminiCountOf(req),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: geminiCountOf(req) }],
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const { body, recorded } = await readRequest(req);
    s.requests.push(recorded);
    const m = route.exec(url.pathname);
    if (req.method !== 'POST' || !m) return sendError(res, 404, `Requested entity was not found.`);
    const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    if (typeof key !== 'string' || key === '') {
      return sendError(
        res,
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return sendError(res, 400, 'Invalid JSON payload received. Unexpected token.');
    if (m[3] === 'countTokens') return countTokens(res, body as Json);
    const b = body as Json;
    if (!Array.isArray(b.contents) || b.contents.length === 0)
      return sendError(res, 400, '* GenerateContentRequest.contents: contents is not specified\n');
    const model = m[2].replace(/^models\//, '');
    const stream = m[3] === 'streamGenerateContent';
    const reply = s.next(recorded) ?? { kind: 'text', text: lastUserText(b) };
    if (reply.kind === 'error')
      return sendError(
        res,
        reply.status,
        reply.message ?? defaultMessages[reply.status] ?? 'Request failed.',
        reply.retryAfter,
      );
    const p = plan(reply);
    const prompt = promptTokens(b);
    const responseId = randomBytes(16).toString('base64url');
    const output = p.chunks
      .flat()
      .map((x) => (typeof x.text === 'string' && x.thought !== true ? x.text : JSON.stringify(x.functionCall ?? '')))
      .join('');
    const chunkBody = (parts: Json[], final: boolean): Json =>
      p.blockReason !== undefined
        ? {
            promptFeedback: { blockReason: p.blockReason },
            usageMetadata: usage(prompt, '', 0, false),
            modelVersion: model,
            responseId,
          }
        : {
            candidates: [
              {
                content: { parts, role: 'model' },
                ...(final ? { finishReason: p.finishReason ?? 'STOP' } : {}),
                index: 0,
              },
            ],
            usageMetadata: usage(prompt, output, p.thoughts, final),
            modelVersion: model,
            responseId,
          };

    if (!stream) {
      if (reply.kind === 'cut') {
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        res.write('{\n  "candidates": [\n');
        setImmediate(() => res.destroy());
        return;
      }
      return sendJson(res, 200, chunkBody(mergeText(p.chunks.flat()), true));
    }
    const chunks = p.chunks.map((parts, i) => chunkBody(parts, i === p.chunks.length - 1));
    if (url.searchParams.get('alt') !== 'sse') {
      // Without alt=sse the API streams one JSON array.
      return sendJson(res, 200, chunks);
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'content-disposition': 'attachment',
      server: 'scaffolding on HTTPServer2',
      vary: 'Origin, X-Origin, Referer',
    });
    res.flushHeaders();
    if (reply.kind === 'cut') {
      res.write(`data: ${googleCompactJson(chunkBody(p.chunks[0] ?? [{ text: '' }], false))}\r\n\r\n`);
      setTimeout(() => res.destroy(), 20);
      return;
    }
    void (async () => {
      for (const c of chunks) {
        if (res.destroyed) return;
        res.write(`data: ${googleCompactJson(c)}\r\n\r\n`);
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    })();
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  return { ...s, ...(await listenLoopback(server)) };
}

/** The unary answer joins consecutive plain text parts, as the API does. */
function mergeText(parts: Json[]): Json[] {
  const out: Json[] = [];
  for (const p of parts) {
    const prev = out[out.length - 1];
    if (
      prev &&
      typeof prev.text === 'string' &&
      typeof p.text === 'string' &&
      prev.thought === undefined &&
      p.thought === undefined &&
      p.thoughtSignature === undefined
    ) {
      out[out.length - 1] = { ...prev, text: prev.text + p.text };
    } else out.push({ ...p });
  }
  return out;
}
