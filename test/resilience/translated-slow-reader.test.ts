// A translated stream whose client stops reading must pause the upstream (issue #28: the stream is
// read push by push from undici's 'data' events, so the pause is explicit, not a for-await's pull).
// The upstream writes Chat Completions chunks as fast as its socket takes them (waiting for
// 'drain'); the client reads the headers, then nothing. Once the upstream stops being able to
// write, what it sent is bounded by the buffers between (sockets, undici, the decoded-event queue),
// far below the whole answer. Memory stays bounded because the gateway stops reading. No timing:
// the test waits until the upstream's count stops moving.
import t from 'tap';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const TOTAL_CHUNKS = 400_000;

t.test('a translated stream whose client stops reading pauses its upstream', async (t) => {
  let written = 0;
  let ended = false;
  let upstreamClosed = false;
  const upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => pump(res));
    res.on('close', () => (upstreamClosed = true));
  });
  const chunk = (i: number): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: `token ${i} ` }, finish_reason: null }] })}\n\n`;
  const pump = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const more = (): void => {
      while (i < TOTAL_CHUNKS) {
        const text = chunk(i++);
        written += text.length;
        if (!res.write(text)) return void res.once('drain', more);
      }
      ended = true;
      res.end('data: [DONE]\n\n');
    };
    more();
  };
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.teardown(() => upstream.close());
  const port = (upstream.address() as AddressInfo).port;
  const app = await startInProcessApp(
    t,
    testConfig({
      providers: {
        oai: { type: 'openai', api: 'chat_completions', api_key: 'sk-up', base_url: `http://127.0.0.1:${port}/v1` },
      },
      models: { slow: { routes: [{ provider: 'oai', model: 'm' }] } },
    }),
  );

  // A Messages client (translated to Chat upstream) that reads the status line, then stops.
  const url = new URL(app.url);
  const body = JSON.stringify({
    model: 'slow',
    max_tokens: 10,
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const socket = connect(Number(url.port), url.hostname);
  t.teardown(() => socket.destroy());
  await new Promise<void>((r) => socket.once('connect', r));
  socket.write(
    `POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\nanthropic-version: 2023-06-01\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const head = await new Promise<string>((r) => socket.once('data', (b: Buffer) => r(b.toString('latin1'))));
  t.match(head, /^HTTP\/1\.1 200/, 'the stream started');
  socket.pause();

  // Wait until the upstream has not written anything for a while: it is blocked.
  let last = -1;
  let still = 0;
  while (still < 8 && !ended) {
    await new Promise((r) => setTimeout(r, 100));
    still = written === last ? still + 1 : 0;
    last = written;
  }
  const whole = Array.from({ length: 10 }, (_, i) => chunk(i).length).reduce((a, b) => a + b, 0) * (TOTAL_CHUNKS / 10);
  t.notOk(ended, 'the upstream could not write the whole answer');
  t.ok(
    written < whole / 4,
    `the upstream was paused after ${(written / 2 ** 20).toFixed(1)} MiB of ${(whole / 2 ** 20).toFixed(1)} MiB`,
  );
  t.notOk(upstreamClosed, 'the upstream call is still open (paused, not cut)');

  // The client reads again: the stream goes on (the pause is released).
  const before = written;
  socket.resume();
  socket.on('data', () => {});
  while (written === before && !ended) await new Promise((r) => setTimeout(r, 25));
  t.ok(written > before, 'the upstream writes again once the client reads');
  socket.destroy();
});
