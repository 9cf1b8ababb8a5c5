// Issue #30, finding 5 (last case): 250 concurrent 1 MB echo requests stalled /healthz for 1.9 s:
// bodies that arrived in the same poll phase of the event loop were parsed and served back to
// back. Now a large body waits for its turn (src/infra/http/loop-turns.ts) and large bodies are
// parsed one per turn of the loop. Counted in loop turns, not milliseconds: the app runs in this
// process, and a check-phase counter says in which turn each request's handler ran.
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { stringify } from 'yaml';
import { createApp } from '../../src/app/app.ts';
import { formats } from '../../src/infra/formats/formats.ts';
import { parseConfig } from '../../src/infra/config/load-config.ts';
import { createLogger } from '../../src/infra/log/logger.ts';
import { Runtime } from '../../src/services/runtime/runtime.ts';
import { closeServices, openServices } from '../../src/services/runtime/services.ts';
import { nextTurn } from '../../src/infra/http/loop-turns.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { Writable } from 'node:stream';
import { onEveryLoopTurn } from '../helpers/loop-turns.ts';

t.test('waiters take one turn of the loop each; timers run between them', async (t) => {
  const order: string[] = [];
  const turns = [1, 2, 3, 4].map((i) => nextTurn().then(() => order.push(`turn ${i}`)));
  setTimeout(() => order.push('timer'), 0);
  await Promise.all(turns);
  t.ok(order.indexOf('timer') < order.indexOf('turn 4'), order.join(', '));
});

t.test('large bodies that arrive together are parsed in different turns of the loop', async (t) => {
  const services = await openServices(
    { current: new Runtime(parseConfig(stringify(testConfig({})), 'turns.yaml')) },
    createLogger('warn', new Writable({ write: (_c, _e, done) => done() })),
  );
  // The turn of the loop, counted in the check phase.
  let turn = 0;
  const stopCounting = onEveryLoopTurn(() => turn++);
  const handledIn: number[] = [];
  const app = createApp(services, formats);
  app.middleware.splice(1, 0, async (ctx, next) => {
    await next();
    if (ctx.path === '/v1/chat/completions') handledIn.push(turn);
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    stopCounting();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await closeServices(services);
  });
  const body = Buffer.from(
    JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'word '.repeat(60_000) }] }),
  );
  const n = 20;
  // Every body but its last byte first; then the last bytes of all of them at once, so the server
  // finds every body complete in the same poll phase, as when 250 clients' bodies land together.
  const { port } = server.address() as AddressInfo;
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve) => {
          const s = connect(port, '127.0.0.1', () => {
            s.write(
              `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
                `authorization: Bearer ${TEST_KEY}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
            );
            s.write(body.subarray(0, body.length - 1));
            resolve(s);
          });
        }),
    ),
  );
  const answers = sockets.map(
    (s) =>
      new Promise<string>((resolve) => {
        let head = '';
        s.on('data', (d: Buffer) => (head += d.subarray(0, 32).toString('latin1')));
        s.on('close', () => resolve(head.slice(0, 12)));
      }),
  );
  // The partial bodies are all read before the last bytes go.
  await new Promise((r) => setTimeout(r, 500));
  for (const s of sockets) s.write(body.subarray(body.length - 1));
  const statuses = await Promise.all(answers);
  t.same(statuses, Array(n).fill('HTTP/1.1 200'));
  const perTurn = new Map<number, number>();
  for (const k of handledIn) perTurn.set(k, (perTurn.get(k) ?? 0) + 1);
  t.ok(Math.max(...perTurn.values()) <= 2, `at most two large bodies served in one turn (${[...perTurn.values()]})`);
});
