// A notify_hook receiver on loopback for the family A tests: it records every POST (path, headers,
// body) and answers with the status `statusFor` picks for its path, so a test scripts failures.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedHook = { path: string; headers: IncomingHttpHeaders; body: string };

export async function startHookReceiver(statusFor: (path: string) => number = () => 200): Promise<{
  url: string;
  received: ReceivedHook[];
  at: (path: string) => ReceivedHook[];
  close: () => Promise<void>;
}> {
  const received: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body });
      res.writeHead(statusFor(path)).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
