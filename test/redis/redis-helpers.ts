// Pieces of the multi-instance tests: a gateway config on a shared Redis, a callback receiver.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TuneUpstream } from '../emulators/tune-upstream.ts';
import { upstreamConfig } from '../tune/tune-helpers.ts';

/** Two (or more) instances started with this share every stateful thing through the Redis at `url`. */
export function sharedConfig(
  redisUrl: string,
  up: TuneUpstream,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { tune, ...rest } = extra as { tune?: Record<string, unknown> };
  return upstreamConfig(up, {
    storage: { driver: 'redis', url: redisUrl },
    outbound: { allow_private_addresses: true },
    tune: { task_lease_ms: 1500, ...tune },
    ...rest,
  });
}

export type Receiver = { url: string; bodies: string[]; close(): Promise<void> };

/** Records notify_hook callbacks and answers 200. */
export async function startReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
