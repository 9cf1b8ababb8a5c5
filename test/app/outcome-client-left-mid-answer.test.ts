// A JSON answer whose client leaves while the answer is still being written did not reach it: its
// access line, request metrics and ledger record say `client_closed`, not `ok` (the handler had
// already set `ok` when Koa began writing). The answer is larger than the loopback's socket
// buffers, and the client closes its socket as soon as the headers arrive, so the response closes
// before its last byte is handed to the socket.
import { request } from 'node:http';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const gw = await startInProcessGateway(testConfig({}));
t.teardown(() => gw.stop());

/** Posts a Messages request to the echo model, whose answer repeats `text`; `leave`: close at the headers. */
function post(text: string, leave: boolean): Promise<number> {
  const body = JSON.stringify({
    model: 'echo',
    max_tokens: 16,
    messages: [{ role: 'user', content: text }],
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${gw.url}/v1/messages`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      },
      (res) => {
        if (leave) {
          res.socket.destroy();
          return resolve(res.statusCode ?? 0);
        }
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

t.test('the client leaves while a large answer is written: client_closed', async (t) => {
  t.equal(await post(`left-mid-answer ${'x'.repeat(24 * 1024 * 1024)}`, true), 200);
  const line = await gw.logged(/"request_id"[^\n]*"outcome":"[a-z_]+"[^\n]*/);
  t.match(line, /"outcome":"client_closed"/, 'the access line says the client left');
  t.notMatch(line, /"outcome":"ok"/);
});

t.test('a small answer read whole stays ok', async (t) => {
  t.equal(await post('read-whole', false), 200);
  await gw.matchLog(t, /"outcome":"ok"/, 'the answer that reached its client is ok');
});
