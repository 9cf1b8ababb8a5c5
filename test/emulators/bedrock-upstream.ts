// Amazon Bedrock Runtime on loopback, for Claude through InvokeModel: every request's SigV4
// signature is verified (sigv4-verify.ts), or its Bedrock API key (`Authorization: Bearer`), then the Messages body Bedrock takes (no `model` or
// `stream`, `anthropic_version: bedrock-2023-05-31`) is answered by the Anthropic emulator, byte
// for byte as Anthropic answers (`anthropic_version` required); InvokeModelWithResponseStream sends each Messages event as an
// event-stream `chunk` whose payload is `{"bytes": base64(event JSON)}`, framed by
// @smithy/eventstream-codec. Errors carry `x-amzn-errortype` and `{"message"}` as Bedrock's do.
// Converse and ConverseStream (any model) are answered natively, from the scripted replies (bedrock-converse.ts).
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2Server, type Http2ServerRequest, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { startAnthropicUpstream } from './anthropic-upstream.ts';
import { listenLoopback, readRequest, scriptedReplies, sendJson, type Json } from './emulator-server.ts';
import type { Emulator } from './emulator-types.ts';
import { verifySigV4 } from './sigv4-verify.ts';
import { countTokensAnswer } from './bedrock-count-tokens.ts';
import { converseThinkingProblem, type IssuedReasoning } from './converse-thinking.ts';
import { converseAnswer, converseProblem, converseStreamAnswer, lastUserText } from './bedrock-converse.ts';

export const bedrockCredentials = {
  accessKeyId: 'AKIDBEDROCKEMULATOR1',
  secretAccessKey: 'bedrock/Emulator+Secret/0123456789abcdefEXAMPLE',
};

/** A Bedrock API key (long-term keys start `ABSK`), sent as `Authorization: Bearer` instead of a signature. */
export const bedrockApiKey = 'ABSKQmVkcm9ja0FQSUtleS1lbXVsYXRvcjpzZWNyZXQtMDEyMzQ1Njc4OQ==';

const errorTypes: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const codec = new EventStreamCodec(
  (b) => new TextDecoder().decode(b),
  (s) => new TextEncoder().encode(s),
);

/** `h2Url`: the same service over cleartext HTTP/2, which AWS's client (NodeHttp2Handler) speaks; `url` is HTTP/1.1. */
export type BedrockEmulator = Emulator & {
  region: string;
  h2Url: string;
  /** The Messages events (JSON text) the `chunk` frames of InvokeModelWithResponseStream carried, in order. */
  chunks: string[];
  /** The inputTokens each CountTokens call answered, in order. */
  counts: number[];
};
type Res = ServerResponse;

export async function startBedrockUpstream(
  secrets: ReadonlyMap<string, string> = new Map([
    [bedrockCredentials.accessKeyId, bedrockCredentials.secretAccessKey],
  ]),
  region = 'us-east-1',
  apiKeys: ReadonlySet<string> = new Set([bedrockApiKey]),
): Promise<BedrockEmulator> {
  const anthropic = await startAnthropicUpstream();
  const framed: string[] = [];
  const issued: IssuedReasoning = new Set();
  const counts: number[] = [];
  const s = scriptedReplies(() => {
    framed.length = 0;
    counts.length = 0;
    anthropic.reset();
  });
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));

  // The HTTP/2 compatibility API has the methods the handler uses, under other types.
  const h2 = createH2Server(
    (req, res) => void handle(req, res as unknown as ServerResponse).catch(() => res.destroy()),
  );
  const sessions = new Set<Http2Session>();
  h2.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });

  async function handle(req: IncomingMessage | Http2ServerRequest, res: Res): Promise<void> {
    const { raw, body, recorded } = await readRequest(req);
    s.requests.push(recorded);
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    // Over HTTP/2 the signed `host` is the `:authority` pseudo-header.
    const signed = { ...req.headers, host: req.headers.host ?? req.headers[':authority'] };
    const verdict = bearer
      ? apiKeys.has(bearer)
        ? { ok: true as const, region, service: 'bedrock' }
        : {
            ok: false as const,
            type: 'UnrecognizedClient',
            message: 'Invalid API Key format: Must start with pre-defined prefix',
          }
      : verifySigV4({ method: req.method ?? '', url: req.url ?? '/', headers: signed, body: raw }, secrets);
    if (!verdict.ok) return bedrockError(res, 403, `${verdict.type}Exception`, verdict.message);
    if (verdict.region !== region || verdict.service !== 'bedrock')
      return bedrockError(
        res,
        403,
        'InvalidSignatureException',
        `Credential should be scoped to a valid region ('${region}') and service 'bedrock'.`,
      );
    const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/.exec(
      (req.url ?? '').split('?')[0],
    );
    if (!m || req.method !== 'POST') return bedrockError(res, 404, 'UnknownOperationException', 'Unknown operation');
    const model = decodeURIComponent(m[1]);
    if (m[2] === 'count-tokens') {
      const n = countTokensAnswer(res, body);
      if (n !== undefined) counts.push(n);
      return;
    }
    if (m[2] === 'converse' || m[2] === 'converse-stream') {
      const problem = converseProblem(body) ?? converseThinkingProblem(body as Json, issued);
      if (problem) return bedrockError(res, 400, 'ValidationException', problem);
      const reply = s.next(recorded) ?? { kind: 'text', text: lastUserText(body as Json) };
      return m[2] === 'converse'
        ? converseAnswer(res, reply, body as Json, issued)
        : converseStreamAnswer(res, reply, body as Json, issued);
    }
    const stream = m[2] === 'invoke-with-response-stream';
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return bedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request, please reformat your input and try again.',
      );
    const b = body as Record<string, unknown>;
    // Bedrock's documented value is bedrock-2023-05-31; Anthropic's Bedrock SDK sends its API version date.
    if (typeof b.anthropic_version !== 'string' || b.anthropic_version === '')
      return bedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request: #: required key [anthropic_version] not found or invalid',
      );
    if ('model' in b || 'stream' in b)
      return bedrockError(
        res,
        400,
        'ValidationException',
        `Malformed input request: #: extraneous key [${'model' in b ? 'model' : 'stream'}] is not permitted`,
      );
    const reply = s.next(recorded);
    if (reply) anthropic.script(reply);
    const { anthropic_version: _v, anthropic_beta: betas, ...rest } = b;
    const inner = { model, ...rest, ...(stream ? { stream: true } : {}) };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-api-key': 'bedrock-inner',
      'anthropic-version': '2023-06-01',
    };
    if (Array.isArray(betas)) headers['anthropic-beta'] = betas.join(',');
    await relay(`${anthropic.url}/v1/messages`, JSON.stringify(inner), headers, res, stream, framed);
  }

  const listening = await listenLoopback(server);
  await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
  return {
    ...s,
    url: listening.url,
    h2Url: `http://127.0.0.1:${(h2.address() as AddressInfo).port}`,
    region,
    chunks: framed,
    counts,
    close: async () => {
      for (const session of sessions) session.destroy();
      await listening.close();
      await new Promise<void>((resolve) => h2.close(() => resolve()));
      await anthropic.close();
    },
  };
}

/** The Anthropic emulator's answer in Bedrock's shape: JSON as is, errors and streams re-framed. */
function relay(
  url: string,
  payload: string,
  headers: Record<string, string>,
  res: Res,
  stream: boolean,
  chunks: string[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const up = request(url, { method: 'POST', headers }, (ur) => {
      const status = ur.statusCode ?? 500;
      const parts: Buffer[] = [];
      if (status >= 400 || !stream) {
        ur.on('data', (c: Buffer) => parts.push(c));
        ur.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          if (status >= 400) {
            const message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
            bedrockError(res, status === 529 ? 503 : status, errorTypes[status] ?? 'InternalServerException', message);
          } else {
            res.writeHead(200, {
              'content-type': 'application/json',
              'x-amzn-requestid': crypto.randomUUID(),
              'x-amzn-bedrock-input-token-count': '1',
            });
            res.end(text);
          }
          resolve();
        });
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/vnd.amazon.eventstream',
        'x-amzn-requestid': crypto.randomUUID(),
      });
      const parser = createParser({
        onEvent: (ev) => {
          const data = ev.data;
          const event = JSON.parse(data) as Record<string, unknown>;
          if (event.type === 'message_stop')
            event['amazon-bedrock-invocationMetrics'] = {
              inputTokenCount: 1,
              outputTokenCount: 1,
              invocationLatency: 1,
              firstByteLatency: 1,
            };
          if (event.type === 'error') {
            const e = event.error as { type?: string; message?: string };
            res.write(
              exceptionFrame(
                e.type === 'overloaded_error' ? 'serviceUnavailableException' : 'internalServerException',
                e.message ?? '',
              ),
            );
            return;
          }
          const json = JSON.stringify(event);
          chunks.push(json);
          res.write(chunkFrame(json));
        },
      });
      ur.setEncoding('utf8');
      ur.on('data', (c: string) => parser.feed(c));
      ur.on('end', () => {
        res.end();
        resolve();
      });
      ur.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    up.on('error', reject);
    up.end(payload);
  });
}

const str = (value: string) => ({ type: 'string' as const, value });

/** One ConverseStream event: its name in `:event-type`, its JSON as the payload. */
export function converseFrame(eventType: string, event: unknown): Uint8Array {
  return codec.encode({
    headers: { ':event-type': str(eventType), ':content-type': str('application/json'), ':message-type': str('event') },
    body: new TextEncoder().encode(JSON.stringify(event)),
  });
}

/** One `chunk` event: the Messages event base64-encoded in `bytes`, with Bedrock's padding field `p`. */
export function chunkFrame(eventJson: string): Uint8Array {
  const payload = JSON.stringify({
    bytes: Buffer.from(eventJson).toString('base64'),
    p: 'abcdefghijklmnopqrstuvwxyzABCDEF'.slice(0, 1 + (eventJson.length % 30)),
  });
  return codec.encode({
    headers: { ':event-type': str('chunk'), ':content-type': str('application/json'), ':message-type': str('event') },
    body: new TextEncoder().encode(payload),
  });
}

export function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': str(type),
      ':content-type': str('application/json'),
      ':message-type': str('exception'),
    },
    body: new TextEncoder().encode(JSON.stringify({ message })),
  });
}

export function bedrockError(res: Res, status: number, type: string, message: string): void {
  sendJson(
    res,
    status,
    { message },
    {
      'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': crypto.randomUUID(),
    },
  );
}
