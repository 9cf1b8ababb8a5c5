// Issue #28, bounded work: an upstream answer held in memory is bounded by
// `upstream.max_answer_bytes` (65536 here), through a running polygate and an upstream that
// misbehaves (a broken proxy, a misbehaving model server). Translated (Messages SDK → openai-chat
// upstream): a JSON answer past the bound is a 502 naming the setting (a fallback route serves);
// a stream whose one line never ends gets the family's error event and its upstream connection is
// closed. Relayed (Chat client → Chat upstream): a JSON answer past the bound still reaches the
// client byte for byte, and is billed as estimated (the usage tap stopped copying it); so is a
// stream whose one event is past the bound (the tap stopped parsing, the relay did not).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { route, routesTo } from '../helpers/model-routes.ts';
import { readNotingFirstBytes, writeUpTo } from '../helpers/upstream-writes.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { ADMIN_TOKEN, usage, type Row } from '../usage/usage-helpers.ts';

const BOUND = 65_536;
type Answer = (res: ServerResponse, model: string) => void | Promise<void>;
const queue: Answer[] = [];
/** How each answer ended for the upstream: written in full, or its connection closed first. */
const ended: Promise<string>[] = [];
const sockets = new Set<Socket>();
/** Calls to the `solo` route: each is billed one record. */
let soloCalls = 0;

const upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { model: string };
    if (body.model === 'up-solo') soloCalls++;
    ended.push(new Promise((ok) => res.on('close', () => ok(res.writableFinished ? 'finished' : 'closed'))));
    void (queue.shift() ?? ((r) => void r.writeHead(500).end('no answer scripted')))(res, body.model);
  });
});
upstream.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
const upUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;

const noBreaker = { consecutive_failures: 0, failure_ratio: 0 };
const gw = await startInProcessGateway(
  testConfig({
    upstream: { max_answer_bytes: BOUND },
    providers: { up: { type: 'openai', base_url: upUrl, api_key: 'sk-up-0123456789', api: 'chat_completions' } },
    models: {
      solo: { breaker: noBreaker, ...routesTo(route('up/up-solo')) },
      backed: { breaker: noBreaker, ...routesTo(route('up/up-first'), 'echo/echo-1') },
    },
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50, prices: { models: { solo: { input: 3, output: 15 } } } },
  }),
);
t.teardown(async () => {
  await gw.stop();
  for (const s of sockets) s.destroy();
  await new Promise((ok) => upstream.close(ok));
});
const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
t.beforeEach(() => {
  queue.length = 0;
  ended.length = 0;
});

/** A Chat Completions answer whose text makes it `size` bytes or more, with the usage it reports. */
const bigJson = (model: string, size: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'a'.repeat(size) }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }),
  );
/** The answer written in 16 KiB pieces, chunked (no length): what a model server streaming its JSON does. */
const inPieces =
  (size: number): Answer =>
  async (res, model) => {
    const bytes = bigJson(model, size);
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let at = 0; at < bytes.length && !res.destroyed; at += 16_384) {
      res.write(bytes.subarray(at, at + 16_384));
      await new Promise((ok) => setImmediate(ok));
    }
    res.end();
  };
const frame = (model: string, delta: object, finish: string | null = null, more: object = {}): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...more })}\n\n`;

t.test('a translated JSON answer past the bound is a 502 naming the setting; a fallback serves', async (t) => {
  queue.push(inPieces(4 * BOUND));
  const e = await client.messages
    .create({ model: 'solo', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] })
    .catch((x: unknown) => x);
  t.ok(e instanceof Anthropic.APIError, 'the Messages error');
  t.equal((e as InstanceType<typeof Anthropic.APIError>).status, 502);
  t.match((e as Error).message, /provider 'up' sent an answer larger than upstream\.max_answer_bytes \(65536 bytes\)/);
  t.notMatch((e as Error).message, /aaaa/, 'none of the upstream’s bytes');
  t.equal(await ended[0], 'closed', 'the upstream call was ended');

  queue.push(inPieces(4 * BOUND));
  const { data, response } = await client.messages
    .create({ model: 'backed', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] })
    .withResponse();
  t.equal(response.headers.get('x-polygate-route'), 'echo/echo-1', 'the fallback served');
  t.equal(data.content[0].type === 'text' && data.content[0].text, 'hello');
});

t.test('an answer within the bound is served', async (t) => {
  queue.push(inPieces(BOUND - 1_000));
  const m = await client.messages.create({
    model: 'solo',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.equal(m.content[0].type === 'text' && m.content[0].text.length, BOUND - 1_000);
});

t.test('an error body past the bound keeps its first bytes and ends the call', async (t) => {
  queue.push(async (res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.write('upstream broke: ');
    await writeUpTo(res, 'x', 64 * BOUND);
    if (!res.destroyed) res.end();
  });
  const e = await client.messages
    .create({ model: 'solo', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] })
    .catch((x: unknown) => x);
  t.ok(e instanceof Anthropic.APIError, 'the Messages error');
  t.equal(await ended[0], 'closed', 'the upstream call was ended');
});

t.test('a translated stream whose one line never ends gets the family’s error event', async (t) => {
  queue.push(async (res, model) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame(model, { role: 'assistant', content: '' }) + frame(model, { content: 'start' }));
    res.write('data: {"endless":"');
    // Endless as far as a bounded read can tell: 64 bounds (a tree without the bound reads it all).
    await writeUpTo(res, 'y', 64 * BOUND);
    if (!res.destroyed) res.end('"}\n\n' + frame(model, {}, 'stop') + 'data: [DONE]\n\n');
  });
  const stream = await client.messages.create({
    model: 'solo',
    max_tokens: 16,
    stream: true,
    messages: [{ role: 'user', content: 'hello' }],
  });
  let text = '';
  const e = await (async () => {
    for await (const ev of stream)
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
  })().catch((x: unknown) => x);
  t.equal(text, 'start', 'what came before the endless line');
  t.ok(e instanceof Anthropic.APIError, 'the stream’s error event');
  t.match(
    String((e as Error | undefined)?.message),
    /provider 'up' sent an SSE event larger than upstream\.max_answer_bytes \(65536 bytes\)/,
  );
  t.equal(await ended[0], 'closed', 'the upstream call was ended');
});

const rowOf = (n: number): Promise<Row> =>
  waitFor(`${n} records of solo`, async () => {
    const row = (await usage(gw, 'group_by=model&model=solo&since=1d')).rows[0];
    return row && row.requests >= n ? row : undefined;
  });
/** The model's counts once every call made to its route so far is recorded. */
const settled = async (): Promise<{ requests: number; estimated: number }> => {
  const row = await rowOf(soloCalls);
  return { requests: Number(row.requests), estimated: Number(row.estimated) };
};
const relayed = (stream: boolean) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'solo', stream, messages: [{ role: 'user', content: 'relay me' }] }),
  });

t.test('a relayed JSON answer past the bound reaches the client whole, billed as estimated', async (t) => {
  const before = await settled();
  let sent: Buffer | undefined;
  queue.push(async (res, model) => {
    sent = bigJson(model, 4 * BOUND);
    await inPieces(4 * BOUND)(res, model);
  });
  const outputBefore = Number((await rowOf(before.requests)).output_tokens);
  const res = await relayed(false);
  t.equal(res.status, 200);
  const got = Buffer.from(await res.arrayBuffer());
  t.ok(sent && got.equals(sent), `the whole body, byte for byte (${got.length} bytes)`);
  const row = await rowOf(before.requests + 1);
  t.equal(row.estimated, before.estimated + 1, 'the record is an estimate: the tap did not copy the answer');
  // Its output estimated from its bytes (4 bounds of text), not billed as nothing.
  t.ok(Number(row.output_tokens) - outputBefore >= BOUND / 8, 'output estimated from the answer bytes');
});

t.test('a relayed stream with one event past the bound is relayed whole, billed as estimated', async (t) => {
  const before = await settled();
  let sent = '';
  let usageFrame = '';
  // Counted per read, the bound may be passed by one read's bytes: the event is several bounds long.
  queue.push((res, model) => {
    sent =
      frame(model, { role: 'assistant', content: '' }) +
      frame(model, { content: 'z'.repeat(4 * BOUND) }) +
      frame(model, {}, 'stop') +
      (usageFrame = frame(model, {}, null, {
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      })) +
      'data: [DONE]\n\n';
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sent);
  });
  const res = await relayed(true);
  t.equal(res.status, 200);
  // The usage polygate asked for (the client did not) is kept from the client, as on every relayed stream.
  t.equal(await res.text(), sent.replace(usageFrame, ''), 'the whole stream as sent, the big event included');
  const row = await rowOf(before.requests + 1);
  t.equal(row.estimated, before.estimated + 1, 'estimated: the tap stopped at the event past the bound');
});

t.test(
  'a relayed JSON answer past the bound is not held whole: its record is stored, then its bytes go on',
  async (t) => {
    const before = await settled();
    let upstreamDone = false;
    let release = (): void => {};
    const released = new Promise<void>((ok) => (release = ok));
    let sent: Buffer | undefined;
    queue.push(async (res, model) => {
      sent = bigJson(model, 4 * BOUND);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(sent.subarray(0, 3 * BOUND));
      // The rest once the client has had bytes; held whole (before the fix) it has none before the end,
      // so the upstream also goes on after 5 s (a liveness bound for the test, not a timed assertion).
      await Promise.race([released, new Promise((ok) => setTimeout(ok, 5_000).unref())]);
      upstreamDone = true;
      res.end(sent.subarray(3 * BOUND));
    });
    const res = await relayed(false);
    t.equal(res.status, 200);
    const { bytes, doneAtFirstBytes } = await readNotingFirstBytes(res.body!, () => upstreamDone, release);
    t.equal(
      doneAtFirstBytes,
      false,
      'the client had bytes before the upstream finished: the answer was not held whole',
    );
    t.ok(sent && bytes.equals(sent), 'the whole body, byte for byte');
    const row = await rowOf(before.requests + 1);
    t.equal(row.estimated, before.estimated + 1, 'billed as estimated: its record stored before its bytes went on');
  },
);
