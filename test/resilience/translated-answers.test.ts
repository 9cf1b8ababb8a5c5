// Translated answers as the upstream sends them, through a running polygate (Messages SDK →
// openai-chat upstream), read by src/infra/upstream/upstream-answer.ts. Non-streamed, read whole: a
// large answer in many odd-sized chunks (UTF-8 characters split between them), a BOM, a body cut
// or idle past the route's idle timeout after the head (the route fails, the fallback serves), error
// statuses in the family's shape with the provider's key scrubbed, and a client that leaves while
// the answer is held (the call runs to its end and its connection serves the next call). Streamed:
// SSE frames split anywhere between writes arrive as sent, an error status before the stream is
// the family's error, and a client that leaves mid-stream ends the upstream call (its connection
// closed) while the next stream is served.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { route, routesTo } from '../helpers/model-routes.ts';
import { waitFor } from '../helpers/wait-for.ts';

const UP_KEY = 'sk-up-secret-0123456789';
type Answer = (
  res: ServerResponse,
  json: (text: string) => Buffer,
  sse: (words: string[]) => Buffer,
) => void | Promise<void>;
const queue: Answer[] = [];
const seen: { port: number; done: Promise<string> }[] = [];
const sockets = new Set<Socket>();

const upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { model: string; stream?: boolean };
    // How the answer ended for the upstream: written in full, or its connection closed first.
    seen.push({
      port: req.socket.remotePort ?? 0,
      done: new Promise((ok) => {
        res.on('finish', () => ok('finished'));
        res.on('close', () => ok(res.writableFinished ? 'finished' : 'closed'));
      }),
    });
    const json = (text: string): Buffer =>
      Buffer.from(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
      );
    const frame = (delta: object, finish: string | null = null): string =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse = (words: string[]): Buffer =>
      Buffer.from(
        [frame({ role: 'assistant', content: '' }), ...words.map((w) => frame({ content: w })), frame({}, 'stop')].join(
          '',
        ) + 'data: [DONE]\n\n',
      );
    const answer =
      queue.shift() ??
      ((r, j, s) =>
        body.stream
          ? void r.writeHead(200, { 'content-type': 'text/event-stream' }).end(s(['o', 'k']))
          : void r.writeHead(200, { 'content-type': 'application/json' }).end(j('ok')));
    void answer(res, json, sse);
  });
});
upstream.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
const upUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;

const tight = { first_byte_ms: 2_000, idle_ms: 300 };
const noBreaker = { consecutive_failures: 0, failure_ratio: 0 };
const gw = await startInProcessGateway(
  testConfig({
    providers: { up: { type: 'openai', base_url: upUrl, api_key: UP_KEY, api: 'chat_completions' } },
    models: {
      solo: { breaker: noBreaker, ...routesTo(route('up/up-solo', { timeouts: tight })) },
      backed: { breaker: noBreaker, ...routesTo(route('up/up-first', { timeouts: tight }), 'echo/echo-1') },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  for (const s of sockets) s.destroy();
  await new Promise((ok) => upstream.close(ok));
});
const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const ask = (model: string) =>
  client.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
const textOf = (m: Anthropic.Message): string => m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');

t.beforeEach(() => {
  queue.length = 0;
  seen.length = 0;
});

t.test('a large answer in odd-sized chunks, characters split between them, arrives whole', async (t) => {
  const text = 'héllo wörld 中文 😀 '.repeat(60_000);
  queue.push(async (res, json) => {
    const bytes = json(text);
    res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length
    for (let at = 0, n = 1; at < bytes.length; at += n, n = (n * 7 + 3) % 65_521) {
      res.write(bytes.subarray(at, at + n));
      if (n % 5 === 0) await new Promise((ok) => setImmediate(ok));
    }
    res.end();
  });
  const { data } = await ask('solo');
  t.equal(textOf(data), text);
});

t.test('a BOM before a sized answer is skipped, as undici reads it', async (t) => {
  queue.push((res, json) => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json('with a bom')]);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) }).end(bytes);
  });
  t.equal(textOf((await ask('solo')).data), 'with a bom');
});

const halfThen = (then: 'cut' | 'idle'): Answer => {
  return (res, json) => {
    const bytes = json('never whole');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.write(bytes.subarray(0, bytes.length >> 1));
    if (then === 'cut') setTimeout(() => res.socket?.destroy(), 20);
  };
};

for (const then of ['cut', 'idle'] as const)
  t.test(`a body ${then === 'cut' ? 'cut' : 'idle past the idle timeout'} after the head`, async (t) => {
    queue.push(halfThen(then));
    const e = await ask('solo').catch((x: unknown) => x);
    t.ok(e instanceof Anthropic.APIError, 'the Messages error');
    t.equal((e as InstanceType<typeof Anthropic.APIError>).status, 502);
    t.match((e as Error).message, /provider 'up' answered with a body that is not JSON/);
    t.equal(await seen[0].done, 'closed', 'the upstream connection was closed');

    queue.push(halfThen(then));
    const { data, response } = await ask('backed');
    t.equal(response.headers.get('x-polygate-route'), 'echo/echo-1', 'the fallback served');
    t.equal(textOf(data), 'hello');
  });

t.test('error statuses in the family’s shape, the provider key scrubbed', async (t) => {
  queue.push(
    (res) =>
      void res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
        .end(JSON.stringify({ error: { message: `slow down, ${UP_KEY}`, type: 'rate_limit_error' } })),
  );
  const limited = await ask('solo').catch((x: unknown) => x);
  t.ok(limited instanceof Anthropic.RateLimitError, '429 as the Messages rate-limit error');
  t.notMatch((limited as Error).message, UP_KEY);
  t.match((limited as Error).message, /slow down, \[redacted\]/);

  queue.push((res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad key"}'));
  const rejected = await ask('solo').catch((x: unknown) => x);
  t.equal((rejected as InstanceType<typeof Anthropic.APIError>).status, 502);
  t.match((rejected as Error).message, /provider 'up' rejected polygate's credentials \(HTTP 401\)/);

  queue.push((res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));
  const { response } = await ask('backed');
  t.equal(response.headers.get('x-polygate-route'), 'echo/echo-1', 'a 500 falls back');
});

t.test('a client that leaves while the answer is held: the call runs to its end, its connection is kept', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((ok) => (release = ok));
  let headSent!: () => void;
  const started = new Promise<void>((ok) => (headSent = ok));
  queue.push(async (res, json) => {
    const bytes = json('held answer');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.write(bytes.subarray(0, 10));
    headSent();
    await held;
    res.end(bytes.subarray(10));
  });
  const logged = gw.logs().length;
  const leaving = new AbortController();
  const gone = fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    signal: leaving.signal,
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'solo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  }).catch((e: unknown) => e);
  await started;
  leaving.abort();
  t.ok((await gone) instanceof Error, 'the client left');
  release();
  t.equal(await seen[0].done, 'finished', 'the upstream wrote its answer in full');
  // The gateway's request ends once the call has read the answer: its connection is back in the pool.
  await waitFor('the request to end', async () => (gw.logs().length > logged ? true : undefined));
  t.equal(textOf((await ask('solo')).data), 'ok', 'the next call is answered');
  t.equal(seen[1].port, seen[0].port, 'on the same upstream connection');
});

const streamOf = (model: string, signal?: AbortSignal) =>
  client.messages.create(
    { model, max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hello' }] },
    { signal },
  );

t.test('a stream whose frames are split anywhere between writes arrives as sent', async (t) => {
  const words = Array.from({ length: 300 }, (_, i) => `wörd${i}😀 `);
  queue.push(async (res, _json, sse) => {
    const bytes = sse(words);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let at = 0, n = 1; at < bytes.length; at += n, n = (n * 5 + 1) % 97) {
      res.write(bytes.subarray(at, at + n));
      if (n % 3 === 0) await new Promise((ok) => setImmediate(ok));
    }
    res.end();
  });
  let text = '';
  for await (const e of await streamOf('solo'))
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  t.equal(text, words.join(''));
});

t.test('an error status before a stream is the family’s error, scrubbed', async (t) => {
  queue.push(
    (res) =>
      void res
        .writeHead(429, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `wait, ${UP_KEY}`, type: 'rate_limit_error' } })),
  );
  const e = await streamOf('solo').catch((x: unknown) => x);
  t.ok(e instanceof Anthropic.RateLimitError);
  t.match((e as Error).message, /wait, \[redacted\]/);
});

t.test('a client that leaves mid-stream ends the upstream call; the next stream is served', async (t) => {
  let wrote!: () => void;
  const started = new Promise<void>((ok) => (wrote = ok));
  queue.push((res, _json, sse) => {
    const bytes = sse(['a', 'b', 'c']);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(bytes.subarray(0, bytes.length >> 1));
    wrote();
    // Held: never ended by the upstream; only the gateway's leaving closes it.
  });
  const leaving = new AbortController();
  const stream = await streamOf('solo', leaving.signal);
  await started;
  let deltas = 0;
  try {
    for await (const e of stream)
      if (e.type === 'content_block_delta') {
        deltas++;
        leaving.abort();
      }
  } catch {
    // the SDK's abort error: the client leaving, as wanted
  }
  t.ok(deltas >= 1, 'the stream had started when the client left');
  t.equal(await seen[0].done, 'closed', 'the upstream connection was closed by the gateway');
  let text = '';
  for await (const e of await streamOf('solo'))
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  t.equal(text, 'ok', 'the next stream is answered');
});
