// Several accept queues on the listening port (listen.accept_queues, src/app/accept-queues.ts):
// libuv accepts one connection per loop turn and queue, so polygate listens on the same port
// with SO_REUSEPORT several times and hands every connection to the one HTTP server. What must
// hold: the queues exist, a client lands on any of them and is served like on the first (here
// streams through the Anthropic SDK, each on its own connection), and the connection cap
// (listen.max_connections) is one cap over all queues, not one per queue. Linux only.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { Agent } from 'undici';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';

if (process.platform !== 'linux') {
  t.pass('SO_REUSEPORT accept queues are Linux only');
  process.exit(0);
}

const CAP = 5;
const gw = await startGateway(
  testConfig({ listen: { host: '127.0.0.1', port: 0, accept_queues: 4, max_connections: CAP } }),
);
t.teardown(() => gw.stop());

/** A raw connection that asks for /healthz: resolves with the status line, or 'closed' if cut unanswered. */
function probe(keep: net.Socket[]): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(gw.port, '127.0.0.1');
    keep.push(s);
    let got = '';
    s.on('error', () => {});
    s.on('connect', () => s.write('GET /healthz HTTP/1.1\r\nhost: polygate\r\n\r\n'));
    s.on('data', (b) => {
      got += b.toString();
      if (got.includes('\r\n')) resolve(got.slice(0, got.indexOf('\r\n')));
    });
    s.on('close', () => resolve(got ? got.slice(0, got.indexOf('\r\n')) : 'closed'));
  });
}

t.test('the port has one listening socket per accept queue', async (t) => {
  await gw.matchLog(t, /"accept_queues":4/);
  const listening = execFileSync('ss', ['-ltnH', `sport = :${gw.port}`], { encoding: 'utf8' })
    .trim()
    .split('\n');
  t.equal(listening.length, 4, listening.join('\n'));
});

t.test('the connection cap holds over all the queues together', async (t) => {
  const keep: net.Socket[] = [];
  t.teardown(() => keep.forEach((s) => s.destroy()));
  // CAP connections, each answered and kept open (keep-alive) ...
  const first = await Promise.all(Array.from({ length: CAP }, () => probe(keep)));
  t.same(first, Array(CAP).fill('HTTP/1.1 200 OK'));
  // ... then every further one is closed unanswered, whichever queue the kernel gave it to
  // (with a cap per queue, most of these would be served).
  const over = await Promise.all(Array.from({ length: 12 }, () => probe(keep)));
  t.same(over, Array(12).fill('closed'));
  // Closing the held connections frees their places.
  for (const s of keep.splice(0)) s.destroy();
  await waitFor('the held connections to be closed at the server', async () => {
    const probeOnly: net.Socket[] = [];
    const status = await probe(probeOnly);
    probeOnly.forEach((s) => s.destroy());
    return status === 'HTTP/1.1 200 OK' ? true : undefined;
  });
  const again = await Promise.all(Array.from({ length: CAP }, () => probe(keep)));
  t.same(again, Array(CAP).fill('HTTP/1.1 200 OK'));
});

t.test('streams on separate connections are all served, whichever queue took them', async (t) => {
  const agents = Array.from({ length: CAP }, () => new Agent({ connections: 1 }));
  t.teardown(() => Promise.all(agents.map((a) => a.close())));
  const texts = await Promise.all(
    agents.map(async (dispatcher, i) => {
      const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, fetchOptions: { dispatcher } as never });
      const stream = client.messages.stream({
        model: 'echo',
        max_tokens: 64,
        messages: [{ role: 'user', content: `stream number ${i}` }],
      });
      const final = await stream.finalMessage();
      return final.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    }),
  );
  texts.forEach((text, i) => t.match(text, `stream number ${i}`));
});

t.test('a second polygate on the same port fails to start instead of sharing it', async (t) => {
  // Both would set SO_REUSEPORT: without the plain bind first, the second would listen beside the
  // first and take part of its connections.
  const second = await startGateway(testConfig({ listen: { host: '127.0.0.1', port: 0, accept_queues: 4 } }), {
    PORT: String(gw.port),
  }).then(
    async (g) => {
      await g.stop();
      return undefined;
    },
    (e: unknown) => e as Error,
  );
  t.ok(second, 'the second does not start');
  t.match(second?.message, new RegExp(`polygate cannot listen on 127\\.0\\.0\\.1:${gw.port}: .*EADDRINUSE`));
});
