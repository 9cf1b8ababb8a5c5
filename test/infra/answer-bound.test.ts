// upstream.max_answer_bytes where the answer is read (issue #28, bounded work), on both reads of
// src/infra/upstream/upstream-answer.ts: undici's dispatcher API (a string body to a plain URL)
// and undici's own request() (a URL undici judges itself: here one with user info). An answer of
// exactly the bound is read; one byte more rejects with a 502 naming the setting and ends the
// call; an error body past it keeps exactly its first bytes. And one SSE event past the bound
// fails readSse's stream as a cut one.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import t from 'tap';
import { Agent } from 'undici';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { readSse } from '../../src/infra/upstream/read-sse.ts';
import { upstreamAnswer } from '../../src/infra/upstream/upstream-answer.ts';
import { boundedJson, upstreamRequest, type UpstreamCall } from '../../src/infra/upstream/upstream-request.ts';
import { upstreamCodecOf } from '../../src/services/providers/upstream-codecs.ts';

const MAX = 1_000;
let answer: (res: ServerResponse) => void = (res) => res.end();
const closed: Promise<boolean>[] = [];
const sockets = new Set<Socket>();
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    closed.push(new Promise((ok) => res.on('close', () => ok(!res.writableFinished))));
    answer(res);
  });
});
server.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAliveTimeout: 30_000 });
t.teardown(async () => {
  await agent.close();
  for (const s of sockets) s.destroy();
  await new Promise((ok) => server.close(ok));
});

const reads = {
  dispatch: `http://127.0.0.1:${port}/a`,
  'request()': `http://user:pw@127.0.0.1:${port}/a`,
};
const callOf = (url: string): UpstreamCall => ({
  provider: 'up',
  upstreamFormat: 'openai-chat',
  url,
  dispatcher: agent,
  timeouts: { firstByteMs: 2_000, idleMs: 2_000 },
  headers: { 'content-type': 'application/json' },
  body: '{}',
  maxAnswerBytes: MAX,
});
/** `size` bytes in pieces of 100, then held open: only the reader's ending the call closes it past the bound. */
const sized =
  (status: number, size: number, end = true) =>
  (res: ServerResponse): void => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    for (let at = 0; at < size; at += 100) res.write('x'.repeat(Math.min(100, size - at)));
    if (end) res.end();
  };

for (const [read, url] of Object.entries(reads))
  t.test(`${read}: an answer of the bound is read, one byte more is a 502 naming the setting`, async (t) => {
    closed.length = 0;
    answer = sized(200, MAX);
    t.equal((await upstreamAnswer(callOf(url))).text?.length, MAX, 'exactly the bound: read');
    answer = sized(200, MAX + 1, false);
    const e = await upstreamAnswer(callOf(url)).catch((x: unknown) => x);
    t.ok(e instanceof GatewayError, 'a GatewayError');
    t.equal((e as GatewayError).status, 502);
    t.equal((e as Error).message, "provider 'up' sent an answer larger than upstream.max_answer_bytes (1000 bytes)");
    t.equal(await closed[1], true, 'the call was ended');
  });

for (const [read, url] of Object.entries(reads))
  t.test(`${read}: an error body past the bound keeps its first bytes`, async (t) => {
    closed.length = 0;
    answer = sized(500, 5 * MAX, false);
    const a = await upstreamAnswer(callOf(url));
    t.equal(a.statusCode, 500);
    t.equal(a.text, 'x'.repeat(MAX), 'the first bytes, exactly');
    t.equal(await closed[0], true, 'the call was ended');
  });

t.test('readSse: one event past the bound fails the stream as a cut one, after the events before it', async (t) => {
  const frame = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })}\n\n`;
  let destroyed = false;
  // The event's line runs on for 50 bounds, then the stream ends (a tree without the bound reads it all).
  let pushed = 0;
  const body = new Readable({
    read() {
      if (pushed === 0) this.push(frame + 'data: "');
      if (pushed++ < 500) this.push('z'.repeat(100));
      else this.push(null);
    },
    destroy(err, cb) {
      destroyed = true;
      cb(err);
    },
  });
  const events: StreamEvent[] = [];
  const sse = readSse(
    body,
    upstreamCodecOf('openai-chat').createStreamDecoder(),
    (e) => ({ type: 'error', error: e as GatewayError }),
    { max: MAX, provider: 'up' },
  );
  for await (const ev of sse) events.push(ev);
  t.ok(
    events.some((e) => e.type === 'text-delta' && e.text === 'hi'),
    'the event before it',
  );
  const last = events.at(-1);
  t.equal(last?.type, 'error');
  t.equal(
    last?.type === 'error' && last.error.message,
    "provider 'up' sent an SSE event larger than upstream.max_answer_bytes (1000 bytes)",
  );
  t.ok(destroyed, 'the source destroyed');
});

t.test('boundedJson (Vertex, Bedrock): past the bound a 502 naming the setting, else JSON or "not JSON"', async (t) => {
  answer = (res) => void res.end(JSON.stringify({ a: 'x'.repeat(MAX) }));
  const e = await boundedJson((await upstreamRequest(callOf(reads.dispatch))).body, 'up', MAX).catch((x: unknown) => x);
  t.equal((e as GatewayError).status, 502);
  t.match((e as Error).message, /upstream\.max_answer_bytes \(1000 bytes\)/);
  answer = (res) => void res.end('{"a":1}');
  t.same(await boundedJson((await upstreamRequest(callOf(reads.dispatch))).body, 'up', MAX), { a: 1 });
  answer = (res) => void res.end('<html>');
  const bad = await boundedJson((await upstreamRequest(callOf(reads.dispatch))).body, 'up', MAX).catch(
    (x: unknown) => x,
  );
  t.equal((bad as Error).message, "provider 'up' answered with a body that is not JSON");
});
