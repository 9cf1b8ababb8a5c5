// The plumbing every upstream emulator shares: reading and recording a request, the queue of
// scripted replies with its responder, and a loopback server that closes with its connections.
// Each emulator keeps only what its vendor does differently (paths, auth, bodies, errors, framing).
import type { IncomingMessage, Server } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Emulator, RecordedRequest, Reply, Responder } from './emulator-types.ts';

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
