// A slow upstream made of any emulator: a loopback proxy in front of it that forwards each request
// as it came, reads the emulator's whole answer, and holds it until the test calls `release()`.
// Tests of what a client that leaves early is billed use it to keep an answer back without timers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HoldingProxy = {
  /** The emulator's base URL through the proxy (same path). */
  url: string;
  /** Answers the proxy holds now (their bodies, as the emulator sent them). */
  held: () => number;
  /** The bodies of the answers released so far, in order. */
  answers: string[];
  /** Sends every held answer on (to callers still connected). */
  release: () => void;
  close: () => Promise<void>;
};

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const base = new URL(target);
  let waiting: Array<() => void> = [];
  const answers: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(new URL(req.url ?? '/', base.origin), {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host' && e[0] !== 'content-length',
          ),
        ),
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const body = await upstream.text();
      await new Promise<void>((r) => waiting.push(r));
      answers.push(body);
      if (res.destroyed) return;
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${base.pathname === '/' ? '' : base.pathname}`,
    held: () => waiting.length,
    answers,
    release: () => {
      const w = waiting;
      waiting = [];
      for (const r of w) r();
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const r of waiting) r();
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
