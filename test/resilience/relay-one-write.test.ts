// The relay (src/families/chat/pass-through.ts) sends each upstream request as one write: the
// request head and the whole body together, with a content-length. A body streamed into the
// upstream request after its head (a second write, or chunked framing) costs a packet more per
// request and, with Nagle's algorithm on either side, can wait for a delayed ACK. Nothing is
// timed here: a raw TCP hop in front of the Anthropic emulator records what each read of the
// gateway's upstream connection held, and each relayed request must arrive whole in one read.
import Anthropic from '@anthropic-ai/sdk';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { messagesComplete } from '../helpers/messages-complete.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const emulator = await startAnthropicUpstream();
const emulatorPort = Number(new URL(emulator.url).port);

/** Every read of every upstream connection, in order. */
const reads: Buffer[] = [];
const sockets = new Set<Socket>();
const hop = createServer((down) => {
  sockets.add(down);
  const up = connect(emulatorPort, '127.0.0.1');
  sockets.add(up);
  down.on('data', (chunk: Buffer) => {
    reads.push(chunk);
    up.write(chunk);
  });
  up.pipe(down);
  down.on('close', () => up.destroy());
  up.on('close', () => down.destroy());
});
await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
const hopUrl = `http://127.0.0.1:${(hop.address() as AddressInfo).port}`;

const gw = await startInProcessGateway(
  testConfig({
    providers: { anthropic: { type: 'anthropic', base_url: hopUrl, api_key: 'sk-ant-upstream-onewrite-0001' } },
    models: modelRoutes({ 'claude-one-write': 'anthropic/claude-one-write-upstream' }),
  }),
);
t.teardown(async () => {
  await gw.stop();
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => hop.close(() => resolve()));
  await emulator.close();
});

/** The request a read holds: its head, and whether the body the head announces is all there. */
function parseRead(chunk: Buffer): { head: string; complete: boolean; chunked: boolean } {
  const text = chunk.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  const chunked = /\r\ntransfer-encoding: *chunked/i.test(head);
  return { head, chunked, complete: end >= 0 && length !== null && chunk.length === end + 4 + Number(length[1]) };
}

t.test('each relayed request reaches the upstream as one read: head and whole body', async (t) => {
  const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  // A long prompt too (~24 KB), still well under one loopback segment.
  // And one in UTF-8 of two to four bytes a character: its content-length counts bytes.
  const prompts = ['one write', 'x'.repeat(24_000), 'kept-alive socket', 'naïve ☃ 日本語 🎉 \u2028'];
  for (const [i, prompt] of prompts.entries()) {
    await messagesComplete(t, client, { model: 'claude-one-write', content: prompt, stream: i === 1 }, `relay ${i}`);
  }
  t.equal(reads.length, prompts.length, 'one read per relayed request');
  for (const [i, chunk] of reads.entries()) {
    const r = parseRead(chunk);
    t.match(r.head, /^POST \/v1\/messages HTTP\/1\.1\r\n/, `read ${i} starts with the request line`);
    t.notOk(r.chunked, `request ${i} is not chunked`);
    t.ok(r.complete, `read ${i} holds the head and the whole body its content-length announces`);
  }
  const relayed = emulator.requests.map((r) => r.body as { model?: string; messages?: { content?: unknown }[] });
  t.same(
    relayed.map((b) => b.model),
    prompts.map(() => 'claude-one-write-upstream'),
    'the emulator received every relayed body, model renamed',
  );
  t.same(
    relayed.map((b) => JSON.stringify(b.messages?.[0]?.content)),
    prompts.map((p) => JSON.stringify(p)),
    'every prompt arrived as it was sent, the multi-byte one too',
  );
});
