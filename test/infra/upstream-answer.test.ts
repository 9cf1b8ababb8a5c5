// upstreamAnswer and upstreamStream (src/infra/upstream/upstream-answer.ts), translated calls' reads
// through undici's dispatcher API, against what they replaced: upstreamRequest + `.text()` on
// undici's body, and readSse over it for streams. Same status, headers and text on random answers (chunk splits inside UTF-8
// characters, a BOM, chunked or sized, error statuses); the same missing body when the read fails
// after the head (cut, idle timeout); the same errors before it (first-byte timeout, refused
// connection); the span ended once; an aborted call rejected as 499 or its socket destroyed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t from 'tap';
import { Agent } from 'undici';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { failureCauseOf } from '../../src/infra/upstream/failure-cause.ts';
import { upstreamAnswer, upstreamStream, type UpstreamAnswer } from '../../src/infra/upstream/upstream-answer.ts';
import { PushedSse, readSse } from '../../src/infra/upstream/read-sse.ts';
import { upstreamCodecOf } from '../../src/services/providers/upstream-codecs.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { neverAborted, upstreamRequest, type UpstreamCall } from '../../src/infra/upstream/upstream-request.ts';

type Script = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
const scripts = new Map<string, Script>();
const sockets = new Set<Socket>();
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => void scripts.get(req.url ?? '')?.(req, res));
});
server.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const agent = new Agent({ keepAliveTimeout: 30_000 });
t.teardown(async () => {
  await agent.close();
  for (const s of sockets) s.destroy();
  await new Promise((ok) => server.close(ok));
});

type Ended = { status: number | undefined; error?: Error };

function callOf(path: string, extra: Partial<UpstreamCall> = {}): UpstreamCall & { ended: Ended[] } {
  const ended: Ended[] = [];
  return {
    provider: 'up',
    upstreamFormat: 'openai-chat',
    url: origin + path,
    dispatcher: agent,
    timeouts: { firstByteMs: 2_000, idleMs: 2_000 },
    headers: { 'content-type': 'application/json' },
    body: '{"q":1}',
    span: { headers: {}, end: (status, error) => void ended.push({ status, error }) },
    ended,
    ...extra,
  };
}

/** What the replaced read gave: the response's head and `.text()`, or undefined when that rejected. */
async function viaReadable(c: UpstreamCall): Promise<UpstreamAnswer> {
  const res = await upstreamRequest(c);
  const text = await res.body.text().then(
    (x) => x,
    () => undefined,
  );
  return { statusCode: res.statusCode, headers: res.headers, text };
}

const withoutDate = (a: UpstreamAnswer): UpstreamAnswer => {
  const { date: _d, ...headers } = a.headers;
  return { ...a, headers };
};

let seed = 7;
const rand = (n: number): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const alphabet = ['a', 'Z', ' ', '"', '\\', 'é', 'ß', '中', '😀', '\n', '{', '}'];

t.test('random answers: the same status, headers and text as request() + .text()', async (t) => {
  for (let i = 0; i < 60; i++) {
    let text = '';
    const len = rand(5) === 0 ? 0 : rand(3) === 0 ? 20_000 + rand(200_000) : rand(300);
    for (let j = 0; j < len; j++) text += alphabet[rand(alphabet.length)];
    const bytes = Buffer.concat([rand(4) === 0 ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text)]);
    const status = [200, 201, 400, 401, 403, 404, 429, 500, 503][rand(9)];
    const sized = rand(2) === 0;
    const cuts = [
      0,
      ...Array.from({ length: rand(6) }, () => rand(bytes.length + 1)).sort((a, b) => a - b),
      bytes.length,
    ];
    const headers: Record<string, string | string[]> = { 'content-type': 'application/json', 'x-n': String(i) };
    if (sized) headers['content-length'] = String(bytes.length);
    if (rand(2) === 0) headers['set-cookie'] = ['a=1', 'b=2'];
    scripts.set(`/r${i}`, async (_req, res) => {
      res.writeHead(status, headers);
      for (let k = 1; k < cuts.length; k++) {
        res.write(bytes.subarray(cuts[k - 1], cuts[k]));
        await new Promise((ok) => setImmediate(ok));
      }
      res.end();
    });
    const a = await upstreamAnswer(callOf(`/r${i}`));
    const b = await viaReadable(callOf(`/r${i}`));
    t.same(withoutDate(a), withoutDate(b), `answer ${i} (${status}, ${bytes.length} bytes, ${cuts.length - 1} writes)`);
  }
});

t.test('a body cut after the head, or idle past the idle timeout: the head stands, the text is missing', async (t) => {
  scripts.set('/cut', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"half":');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  scripts.set('/idle', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"half":');
  });
  for (const path of ['/cut', '/idle']) {
    const c = callOf(path, { timeouts: { firstByteMs: 2_000, idleMs: 150 } });
    const a = await upstreamAnswer(c);
    t.equal(a.statusCode, 200, `${path}: the status`);
    t.equal(a.text, undefined, `${path}: no text`);
    t.same(c.ended, [{ status: 200, error: undefined }], `${path}: the span ended once, with the status`);
    const b = await viaReadable(callOf(path, { timeouts: { firstByteMs: 2_000, idleMs: 150 } }));
    t.equal(b.text, undefined, `${path}: as .text() rejects`);
  }
});

t.test('no answer: the same errors as upstreamRequest, the span ended with the error', async (t) => {
  scripts.set('/stall', () => {});
  const c = callOf('/stall', { timeouts: { firstByteMs: 150, idleMs: 2_000 } });
  const e = await upstreamAnswer(c).catch((x: unknown) => x);
  t.ok(e instanceof GatewayError);
  t.match((e as GatewayError).message, /did not start answering within 150 ms \(first-byte timeout\)/);
  t.equal(failureCauseOf(e as GatewayError), 'timeout');
  t.equal(c.ended.length, 1);
  t.equal(c.ended[0].status, undefined);
  t.ok(c.ended[0].error, 'with the error');
  const old = await upstreamRequest(callOf('/stall', { timeouts: { firstByteMs: 150, idleMs: 2_000 } })).catch(
    (x: unknown) => x,
  );
  t.equal((e as GatewayError).message, (old as GatewayError).message);

  // A port nothing listens on (the server's own, once closed, would race other tests: a fresh one).
  const idle = createServer();
  await new Promise<void>((ok) => idle.listen(0, '127.0.0.1', ok));
  const port = (idle.address() as AddressInfo).port;
  await new Promise((ok) => idle.close(ok));
  const refused = await upstreamAnswer(callOf('/x', { url: `http://127.0.0.1:${port}/x` })).catch((x: unknown) => x);
  t.match((refused as GatewayError).message, /could not be reached \(ECONNREFUSED\)/);
  t.equal(failureCauseOf(refused as GatewayError), 'connection');

  // A URL undici should judge itself goes through its request(): the same error either way.
  const odd = await upstreamAnswer(callOf('/x', { url: 'ftp://127.0.0.1/x' })).catch((x: unknown) => x);
  const oddOld = await upstreamRequest(callOf('/x', { url: 'ftp://127.0.0.1/x' })).catch((x: unknown) => x);
  t.equal((odd as Error).message, (oddOld as Error).message);
});

t.test('an aborted call: 499 before it is sent, its socket destroyed once the answer started', async (t) => {
  const before = new AbortController();
  before.abort();
  const e = await upstreamAnswer(callOf('/stall', { signal: before.signal })).catch((x: unknown) => x);
  t.match(e, { status: 499, message: 'request aborted' });

  let closed: Promise<void> | undefined;
  scripts.set('/held', (_req, res) => {
    closed = new Promise((ok) => res.on('close', () => ok()));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"held":');
  });
  // The span ends when undici hands over the head: the answer has started on this side.
  let started!: () => void;
  const headRead = new Promise<void>((ok) => (started = ok));
  const left = new AbortController();
  const pending = upstreamAnswer(callOf('/held', { signal: left.signal, span: { headers: {}, end: () => started() } }));
  await headRead;
  left.abort();
  const a = await pending;
  t.equal(a.statusCode, 200);
  t.equal(a.text, undefined, 'the body is missing');
  await closed;
  t.pass('the upstream saw its connection closed');

  // The pool goes on: a later call on the same agent is answered.
  scripts.set('/ok', (_req, res) => void res.end('{"ok":true}'));
  t.equal((await upstreamAnswer(callOf('/ok', { signal: neverAborted }))).text, '{"ok":true}');
});

t.test('a call that runs to its end keeps its connection for the next one', async (t) => {
  const ports: number[] = [];
  scripts.set('/port', (req, res) => {
    ports.push(req.socket.remotePort ?? 0);
    res.end('{}');
  });
  const one = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  t.teardown(() => one.close());
  for (let i = 0; i < 3; i++) await upstreamAnswer(callOf('/port', { dispatcher: one }));
  t.equal(new Set(ports).size, 1, 'one keep-alive connection served all three');
});

t.test(
  'streams: the same events as readSse over request()’s body, splits anywhere; error statuses read whole',
  async (t) => {
    const codec = upstreamCodecOf('openai-chat');
    const onError = (e: unknown): StreamEvent => ({ type: 'error', error: new GatewayError('upstream', String(e)) });
    const collect = async (events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> => {
      const out: StreamEvent[] = [];
      for await (const e of events) out.push(e);
      return out;
    };
    for (let i = 0; i < 20; i++) {
      const frames = Array.from(
        { length: 1 + rand(40) },
        (_, k) =>
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: `${alphabet[rand(alphabet.length)]}${k}` }, finish_reason: null }] })}\n\n`,
      );
      const bytes = Buffer.from(frames.join('') + 'data: [DONE]\n\n');
      const cuts = [
        0,
        ...Array.from({ length: rand(12) }, () => rand(bytes.length + 1)).sort((a, b) => a - b),
        bytes.length,
      ];
      scripts.set(`/s${i}`, async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let k = 1; k < cuts.length; k++) {
          res.write(bytes.subarray(cuts[k - 1], cuts[k]));
          await new Promise((ok) => setImmediate(ok));
        }
        res.end();
      });
      const opened = await upstreamStream(
        callOf(`/s${i}`),
        (c) => new PushedSse(c, codec.createStreamDecoder(), onError),
      );
      t.ok('reader' in opened, 'an answer: read as it arrives');
      const got = 'reader' in opened ? await collect(opened.reader) : [];
      const res = await upstreamRequest(callOf(`/s${i}`));
      t.same(got, await collect(readSse(res.body, codec.createStreamDecoder(), onError)), `stream ${i}`);
    }

    scripts.set('/s-429', (_req, res) => void res.writeHead(429, { 'retry-after': '3' }).end('{"error":"slow"}'));
    const refused = await upstreamStream(
      callOf('/s-429'),
      (c) => new PushedSse(c, codec.createStreamDecoder(), onError),
    );
    t.same(
      'reader' in refused
        ? undefined
        : { status: refused.statusCode, retry: refused.headers['retry-after'], text: refused.text },
      { status: 429, retry: '3', text: '{"error":"slow"}' },
      'an error status is read whole',
    );

    // A URL undici judges itself: its request() and its error, as for a whole answer.
    const odd = await upstreamStream(
      callOf('/x', { url: 'ftp://127.0.0.1/x' }),
      (c) => new PushedSse(c, codec.createStreamDecoder(), onError),
    ).catch((x: unknown) => x);
    const oddOld = await upstreamRequest(callOf('/x', { url: 'ftp://127.0.0.1/x' })).catch((x: unknown) => x);
    t.equal((odd as Error).message, (oddOld as Error).message);
  },
);
