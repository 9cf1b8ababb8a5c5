// The plumbing every upstream emulator shares: reading and recording a request, the queue of
// scripted replies with its responder, and a loopback server that closes with its connections.
// Each emulator keeps only what its vendor does differently (paths, auth, bodies, errors, framing).
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Emulator, RecordedRequest, Reply, Responder } from './emulator-types.ts';

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Text split as the emulators stream it: a word with the spaces after it, a chunk each. */
export const words = (s: string): string[] => s.match(/\S+\s*|\s+/g) ?? [];
/** About 4 characters a token: plausible, non-zero counts. */
export const tokens = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

/** A request read whole: its text, its JSON (the text where it does not parse; `undefined` when empty) and its record. */
export async function readRequest(
  req: IncomingMessage | Http2ServerRequest,
): Promise<{ raw: string; body: unknown; recorded: RecordedRequest }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  let body: unknown = raw === '' ? undefined : raw;
  try {
    if (raw !== '') body = JSON.parse(raw);
  } catch {
    // recorded as the raw string
  }
  const recorded: RecordedRequest = {
    method: req.method ?? '',
    path: req.url ?? '/',
    headers: { ...req.headers },
    body,
    raw,
    remotePort: req.socket.remotePort,
  };
  return { raw, body, recorded };
}

export type ScriptedReplies = Pick<Emulator, 'requests' | 'script' | 'respond' | 'reset'> & {
  /** The reply to `recorded`: the next one queued, else the responder's, else `undefined` (the emulator's default). */
  next(recorded: RecordedRequest): Reply | undefined;
};

/** The requests seen and the replies scripted; `onReset` also resets what the emulator relays to. */
export function scriptedReplies(onReset: () => void = () => {}): ScriptedReplies {
  const requests: RecordedRequest[] = [];
  const queue: Reply[] = [];
  let responder: Responder | undefined;
  return {
    requests,
    script: (...replies: Reply[]) => void queue.push(...replies),
    respond: (r) => void (responder = r),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      responder = undefined;
      onReset();
    },
    next: (recorded) => queue.shift() ?? responder?.(recorded),
  };
}

/** Listens on a free loopback port; `url` is the base URL (with `path` appended), `close` cuts open connections. */
export async function listenLoopback(server: Server, path = ''): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `text` whole with its length; the vendor's own `headers` follow the type and length, in that order. */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A compact JSON body (what most vendors send); `contentType` where the vendor names a charset. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  sendText(res, status, JSON.stringify(body), contentType, headers);
}

/** `sendJson` for a vendor whose every answer names its request in the header `idHeader`. */
export const jsonSenderWithId =
  (idHeader: string, newId: () => string) =>
  (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    sendJson(res, status, body, { [idHeader]: newId(), ...headers });

/**
 * POSTs `payload` to an inner emulator and pipes its answer to `res`, for the cloud emulators that wrap
 * another vendor's. `head` writes the status and headers (and anything the cloud sends before the body);
 * an answer that breaks off cuts `res` too.
 */
export function relayTo(
  target: string,
  payload: string,
  headers: Record<string, string>,
  res: ServerResponse,
  head: (upstream: IncomingMessage) => void = (ur) => void res.writeHead(ur.statusCode ?? 502, ur.headers),
): Promise<void> {
  return new Promise((resolve, reject) => {
    const up = request(target, { method: 'POST', headers }, (ur) => {
      head(ur);
      ur.pipe(res);
      ur.on('end', resolve);
      ur.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    up.on('error', reject);
    up.end(payload);
  });
}

/** A request as `startScripted` hands it on: read, recorded, and `next()` for the reply scripted for it. */
export type ScriptedRequest = { body: unknown; recorded: RecordedRequest; next(): Reply | undefined };

/** An emulator that answers from its scripted replies alone: `handle` serves each request, a throw cuts it. */
export async function startScripted(
  handle: (req: IncomingMessage, res: ServerResponse, r: ScriptedRequest) => Promise<void>,
  path = '',
): Promise<Emulator> {
  const s = scriptedReplies();
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { body, recorded } = await readRequest(req);
    s.requests.push(recorded);
    await handle(req, res, { body, recorded, next: () => s.next(recorded) });
  };
  const server = createServer((req, res) => {
    void serve(req, res).catch(() => res.destroy());
  });
  return { ...s, ...(await listenLoopback(server, path)) };
}

/** An upstream failing mid-answer: what `begin` writes (the first bytes), a moment, then a dead socket. */
export async function cutAfter(res: ServerResponse, begin: () => void): Promise<void> {
  begin();
  await new Promise((r) => setTimeout(r, 20));
  res.destroy();
}

/** The head and the first half of a whole JSON answer, as a non-streamed answer cut short sends them. */
export function writeHalf(res: ServerResponse, whole: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(whole)) });
  res.write(whole.slice(0, Math.floor(whole.length / 2)));
}

/**
 * Opens an SSE answer, the vendor's request-id in `headers`; the writer it returns sends one event a
 * network write, as the real services do.
 */
export function openEventStream(res: ServerResponse, headers: Record<string, string>): (s: string) => Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  return async (s) => {
    res.write(s);
    await new Promise((r) => setImmediate(r));
  };
}
