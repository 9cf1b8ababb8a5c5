// A relayed JSON answer past upstream.max_answer_bytes, to a client that is not reading yet: the
// held bytes are written at once when the record is stored, and the relay then waits for one
// 'drain'. Before, each write past the first the full socket refused added its own 'drain'
// listener (hundreds for a large held answer: MaxListenersExceededWarning, and a wrapper per chunk).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { route, routesTo } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

// Past what the kernel's loopback buffers take while the client does not read.
const BOUND = 16 * 1024 * 1024;
let sent: Buffer | undefined;
const upstream = createServer((req, res: ServerResponse) => {
  req.resume();
  req.on('end', async () => {
    sent = Buffer.from(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'a'.repeat(BOUND + 65_536) }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      }),
    );
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let at = 0; at < sent.length && !res.destroyed; at += 65_536) {
      if (!res.write(sent.subarray(at, at + 65_536))) await new Promise((ok) => res.once('drain', ok));
    }
    res.end();
  });
});
await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
const gw = await startInProcessGateway(
  testConfig({
    upstream: { max_answer_bytes: BOUND },
    providers: {
      up: {
        type: 'openai',
        base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
        api_key: 'sk-up-0123456789',
        api: 'chat_completions',
      },
    },
    models: { held: routesTo(route('up/up')) },
  }),
);
t.teardown(async () => {
  await gw.stop();
  upstream.closeAllConnections();
  await new Promise((ok) => upstream.close(ok));
});

t.test('the held answer goes out with one drain wait, byte for byte', async (t) => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'held', messages: [{ role: 'user', content: 'relay me' }] }),
  });
  t.equal(res.status, 200);
  // Not read until the upstream has sent everything: the gateway's socket to the client fills.
  while (sent === undefined) await new Promise((ok) => setTimeout(ok, 20));
  await new Promise((ok) => setTimeout(ok, 500));
  const got = Buffer.from(await res.arrayBuffer());
  t.ok(got.equals(sent), `the whole body (${got.length} bytes)`);
  await new Promise((ok) => setImmediate(ok));
  t.notOk(
    warnings.includes('MaxListenersExceededWarning'),
    `no listener pile-up (${warnings.join(', ') || 'no warnings'})`,
  );
});
