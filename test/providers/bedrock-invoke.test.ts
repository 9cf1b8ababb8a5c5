// Bedrock's envelope and framing (src/services/providers/bedrock/, src/infra/upstream/read-event-stream.ts):
// the InvokeModel body, event-stream frames however the bytes are cut, damaged frames refused (a
// frame's prelude checked before any of it is buffered, its length against upstream.max_answer_bytes),
// and Bedrock's error types mapped onto the failure causes the route loop acts on.
import { crc32 } from 'node:zlib';
import t from 'tap';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { readEventStream } from '../../src/infra/upstream/read-event-stream.ts';
import {
  bedrockError,
  invokeBody,
  invokePath,
  invokeStreamItem,
} from '../../src/services/providers/bedrock/bedrock-invoke.ts';
import { chunkFrame, exceptionFrame } from '../emulators/bedrock-upstream.ts';

const codec = new EventStreamCodec(
  (b) => new TextDecoder().decode(b),
  (s) => new TextEncoder().encode(s),
);

async function* pieces(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
/** A frame's 12-byte prelude claiming `length` bytes (and `headers` of them headers), its CRC right. */
function prelude(length: number, headers = 0): Uint8Array {
  const b = Buffer.alloc(12);
  b.writeUInt32BE(length, 0);
  b.writeUInt32BE(headers, 4);
  b.writeUInt32BE(crc32(b.subarray(0, 8)), 8);
  return new Uint8Array(b);
}
const join = (...frames: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(frames));
async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

t.test('the InvokeModel body: no model or stream, the Bedrock version, betas in the body', async (t) => {
  const body = invokeBody({
    path: '/v1/messages',
    body: { model: 'claude', stream: true, max_tokens: 5, messages: [] },
    headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'a-1, b-2' },
  });
  t.same(body, {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 5,
    messages: [],
    anthropic_beta: ['a-1', 'b-2'],
  });
  t.equal(invokePath('anthropic.claude-v2:1', true), '/model/anthropic.claude-v2%3A1/invoke-with-response-stream');
  t.equal(
    invokePath('arn:aws:bedrock:us-east-1:1:inference-profile/x', false),
    '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fx/invoke',
  );
});

t.test('frames are read whole however the bytes arrive', async (t) => {
  const events = ['{"type":"message_start"}', '{"type":"ping"}', '{"type":"message_stop"}'];
  const bytes = join(...events.map(chunkFrame));
  for (const size of [1, 7, 64, bytes.length]) {
    const got = await collect(readEventStream(pieces(bytes, size)));
    t.same(
      got.map((m) => invokeStreamItem(m)),
      events.map((data) => ({ kind: 'event', frame: { event: (JSON.parse(data) as { type: string }).type, data } })),
      `pieces of ${size}`,
    );
  }
});

t.test('an exception frame becomes its type and message', async (t) => {
  const [m] = await collect(readEventStream(pieces(exceptionFrame('throttlingException', 'slow down'), 5)));
  const item = invokeStreamItem(m);
  t.same(item, { kind: 'error', type: 'throttlingException', body: { message: 'slow down' } });
  const err = bedrockError(500, 'throttlingException', { message: 'slow down' });
  t.equal(err.status, 429);
  t.equal(err.kind, 'rate-limit');
});

t.test('a cut or damaged stream is an upstream error, not a crash', async (t) => {
  const frame = chunkFrame('{"type":"ping"}');
  await t.rejects(collect(readEventStream(pieces(frame.subarray(0, frame.length - 3), 4))), /ended inside a frame/);
  const damaged = new Uint8Array(frame);
  damaged[damaged.length - 6] ^= 0xff;
  await t.rejects(collect(readEventStream(pieces(damaged, 16))), /does not decode/);
  await t.rejects(collect(readEventStream(pieces(prelude(0x7fffffff), 16))), /frame of 2147483647 bytes/);
  await t.rejects(
    collect(readEventStream(pieces(prelude(100, 90), 16))),
    /frame of 100 bytes/,
    'headers past the frame',
  );
  const badPrelude = new Uint8Array(frame);
  badPrelude[11] ^= 0xff;
  await t.rejects(collect(readEventStream(pieces(badPrelude, 16))), /damaged frame prelude/);
  const other = codec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'metadata' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new TextEncoder().encode('{}'),
  });
  const [m] = await collect(readEventStream(pieces(other, 100)));
  t.same(invokeStreamItem(m), { kind: 'skip' });
});

t.test('a frame claiming more than upstream.max_answer_bytes fails at its prelude, nothing of it read', async (t) => {
  let pulled = 0;
  async function* endless(): AsyncIterable<Uint8Array> {
    yield join(chunkFrame('{"type":"ping"}'), prelude(1_000_000));
    for (;;) {
      pulled++;
      yield new Uint8Array(1_000);
    }
  }
  const seen: unknown[] = [];
  const read = (async () => {
    for await (const m of readEventStream(endless(), { max: 65_536, provider: 'br' })) seen.push(invokeStreamItem(m));
  })();
  await t.rejects(
    read,
    /provider 'br' sent an event-stream frame larger than upstream\.max_answer_bytes \(65536 bytes\)/,
  );
  t.equal(seen.length, 1, 'the frame before it');
  t.equal(pulled, 0, 'no byte after the prelude was read');
  // Within the bound, a frame is read as always.
  const ok = chunkFrame(`{"type":"ping","pad":"${'p'.repeat(1_000)}"}`);
  t.equal((await collect(readEventStream(pieces(ok, 7), { max: ok.length, provider: 'br' }))).length, 1);
});

t.test("Bedrock's error types, whatever status they came with", async (t) => {
  const cases: Array<[number, string, number, string]> = [
    [429, 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/', 429, 'rate-limit'],
    [400, 'ServiceQuotaExceededException', 429, 'rate-limit'],
    [503, 'ServiceUnavailableException', 503, 'overloaded'],
    [408, 'ModelTimeoutException', 504, 'timeout'],
    [424, 'ModelErrorException', 502, 'upstream'],
    [400, 'ValidationException', 400, 'invalid-request'],
    [404, 'ResourceNotFoundException', 404, 'not-found'],
    [500, undefined as unknown as string, 500, 'internal'],
  ];
  for (const [status, type, want, kind] of cases) {
    const e = bedrockError(status, type, { message: 'm' });
    t.equal(e.status, want, String(type));
    t.equal(e.kind, kind, String(type));
  }
});
