// A relayed JSON answer waits whole for its usage record (src/families/chat/pass-through.ts). When
// the upstream's body came whole in the turn its headers came (a short answer, nearly always),
// the client gets status, headers and body in one write, not the headers first and the body a
// turn later: a write and a packet less per relayed request (issue #28: pass-through cost more
// CPU per request than translation, one write(2) more each). Nothing timed: a raw client reads
// the answer and the first read must hold all of it.
import { connect } from 'node:net';
import t from 'tap';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

t.test('a short relayed JSON answer reaches the client in one read', async (t) => {
  const { gw } = await gatewayWithEmulators(t, {
    upstreams: { anth: 'anthropic' },
    models: { 'claude-relay': { routes: [{ provider: 'anth', model: 'claude-upstream' }] } },
  });
  const url = new URL(gw.url);
  const body = JSON.stringify({ model: 'claude-relay', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  for (let i = 0; i < 3; i++) {
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((r) => socket.once('connect', r));
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\nanthropic-version: 2023-06-01\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const first = await new Promise<string>((r) => socket.once('data', (b: Buffer) => r(b.toString('utf8'))));
    socket.destroy();
    const [head, rest = ''] = first.split('\r\n\r\n');
    t.match(head, /^HTTP\/1\.1 200/, 'answered');
    t.match(head, /x-polygate-route/i, 'relayed (polygate headers present)');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const complete = length ? Buffer.byteLength(rest) === Number(length[1]) : /\r\n0\r\n\r\n$/.test(first);
    t.ok(complete, `the first read holds the whole body (${Buffer.byteLength(rest)} bytes after the head)`);
    t.doesNotThrow(() => JSON.parse(length ? rest : '{}'), 'a whole JSON body');
  }
});
