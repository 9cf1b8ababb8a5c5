// Issue #30: Node hands an upgrade's socket over without an error listener. A client that sends
// a WebSocket handshake and resets the connection before reading the answer (a refused key's
// 401, a wrong path's 404, or the 101 of an accepted one) made the write fail with nobody
// listening, and the process exited. Now each such socket is only destroyed.
import { connect } from 'node:net';
import t from 'tap';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const handshake = (path: string, key: string, pad: number): string =>
  `GET ${path} HTTP/1.1\r\nHost: polygate\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
  `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
  `Authorization: Bearer ${key}\r\nX-Pad: ${'x'.repeat(pad)}\r\n\r\n`;

t.test('handshakes reset before their answer is read leave the gateway serving', async (t) => {
  const gw = await startGateway(testConfig({}));
  t.teardown(() => gw.stop());
  const kinds = [
    ['/v1/responses', 'sk-wrong'],
    ['/v1/elsewhere', TEST_KEY],
    ['/v1/responses', TEST_KEY],
  ] as const;
  for (let i = 0; i < 300; i++) {
    const [path, key] = kinds[i % kinds.length]!;
    const s = connect(gw.port, '127.0.0.1');
    s.on('error', () => {});
    await new Promise((r) => {
      s.once('connect', r);
      s.once('error', r);
    });
    // A large header now and then: the answer is written while the request is still being read.
    s.write(handshake(path, key, i % 2 === 0 ? 60_000 : 0));
    if (i % 3 === 0) await new Promise((r) => setImmediate(r));
    s.resetAndDestroy();
  }
  const health = await fetch(`${gw.url}/healthz`).catch(() => undefined);
  t.equal(health?.status, 200, '/healthz answers');
  t.equal(gw.process.exitCode, null, 'the process has not exited');
  t.notMatch(gw.output(), /uncaught exception/, 'nothing went unhandled');
  if (gw.process.exitCode !== null) t.comment(gw.output().slice(-1500));
});
