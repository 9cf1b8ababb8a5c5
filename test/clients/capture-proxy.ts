// A recording relay between a client and polygate: every request is forwarded unchanged and its
// method, path, headers and exact body are kept, so what a real client sends can be stored as a
// fixture (test/clients/fixtures/) and replayed later without the client.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export type Captured = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  status?: number;
  /** The start of the answer's body when it was a 4xx or 5xx: what the client was told (scripts/test-clients.ts prints it). */
  error?: string;
};

/** Headers that carry credentials (or cookies): stored as `<redacted>`. */
const secretHeaders = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
  'proxy-authorization',
]);
/** Hop-by-hop and per-connection headers say nothing about the client's request. */
const connectionHeaders = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || connectionHeaders.has(name)) continue;
    out[name] = secretHeaders.has(name) ? '<redacted>' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** A query-string key (`?key=…`, Gemini's other way to authenticate) is redacted too. */
export const redactPath = (path: string): string => path.replace(/([?&]key=)[^&]*/g, '$1<redacted>');

export type CaptureProxy = { url: string; captured: Captured[]; close(): Promise<void> };

export async function startCaptureProxy(target: string): Promise<CaptureProxy> {
  const captured: Captured[] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: Captured = {
        method: req.method ?? 'GET',
        path: redactPath(req.url ?? '/'),
        headers: redactHeaders(req.headers),
        body: body.toString('utf8'),
      };
      captured.push(entry);
      const headers = { ...req.headers, host: to.host };
      delete headers['transfer-encoding'];
      if (body.length > 0 || req.method === 'POST') headers['content-length'] = String(body.length);
      const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers }, (up) => {
        entry.status = up.statusCode;
        res.writeHead(up.statusCode ?? 502, up.headers);
        if ((up.statusCode ?? 0) >= 400) {
          entry.error = '';
          up.on('data', (c: Buffer) => {
            if ((entry.error ?? '').length < 1000) entry.error += c.toString('utf8').slice(0, 1000);
          });
        }
        up.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  // A WebSocket upgrade (Codex's Responses WebSocket) is recorded as its GET and then spliced to
  // the target byte for byte; `status` is the target's answer (101 when the socket opened).
  server.on('upgrade', (req, socket, head) => {
    const entry: Captured = {
      method: req.method ?? 'GET',
      path: redactPath(req.url ?? '/'),
      headers: redactHeaders(req.headers),
      body: '',
    };
    captured.push(entry);
    const up = connect(Number(to.port), to.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(
          `${req.rawHeaders[i]}: ${req.rawHeaders[i].toLowerCase() === 'host' ? to.host : req.rawHeaders[i + 1]}`,
        );
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      up.write(head);
      up.once('data', (first: Buffer) => {
        entry.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1'))?.[1]);
      });
      up.pipe(socket);
      socket.pipe(up);
    });
    const cut = (): void => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', cut);
    socket.on('error', cut);
    up.on('close', cut);
    socket.on('close', cut);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    captured,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
