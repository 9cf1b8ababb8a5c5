// Structure-aware mutants of what a Responses WebSocket client sends (test/fuzz/wire-websocket.test.ts):
// every client event kind polygate takes (response.create in its shapes, response.steer) mutated
// as JSON (test/fuzz/mutate-json.ts), carried by frames whose every field can be wrong: FIN, RSV
// bits, opcode, mask, a lying length header, fragmentation with foreign frames in between, close
// codes and reasons, control frames too long, invalid UTF-8; the bytes written in random pieces,
// sometimes cut off.
import fc from 'fast-check';
import { closePayload, frame, type FrameSpec } from '../responses-ws/raw-frames.ts';
import { bodies, wireText } from './mutate-json.ts';

/** Valid client events of every kind: the vocabulary the mutants are drawn from. */
export const clientEventSeeds: Record<string, unknown>[] = [
  { type: 'response.create', model: 'echo', input: 'hello', store: false },
  { type: 'response.create', model: 'echo', input: 'lane', store: false, stream_id: 'a' },
  { type: 'response.create', model: 'echo', input: 'warm up', generate: false },
  { type: 'response.create', model: 'echo', input: 'again', previous_response_id: 'resp_unknown', store: false },
  {
    type: 'response.create',
    model: 'echo',
    instructions: 'Be brief.',
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      { type: 'item_reference', id: 'msg_1' },
    ],
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }],
    tool_choice: 'auto',
    max_output_tokens: 64,
    metadata: { k: 'v' },
    stream: true,
  },
  { type: 'response.create', model: 'echo', input: 'bg', background: true },
  { type: 'response.steer', previous_response_id: 'resp_1', input: 'go left' },
  { type: 'response.steer', previous_response_id: 'resp_1', input: [{ type: 'message', role: 'user', content: 'x' }] },
  { type: 'session.update', session: {} },
];

/** Payloads: mutated events as JSON text, and text that is not JSON or not UTF-8 at all. */
const payload: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: bodies(clientEventSeeds, 4).map((v) => Buffer.from(wireText(v))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from(''),
      Buffer.from('{"type":"response.create",'),
      Buffer.from([0xff, 0xfe, 0xfd]),
      Buffer.from([0xc0, 0x80]), // overlong NUL
      Buffer.from([0xed, 0xa0, 0x80]), // a lone surrogate in UTF-8
      Buffer.from('{"type":"response.create","model":"echo","input":"\u0000\ud800"}'),
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
);

const closeCodes = fc.oneof(
  fc.constantFrom(0, 999, 1000, 1001, 1004, 1005, 1006, 1011, 1015, 1016, 2999, 3000, 4999, 5000, 65535),
  fc.integer({ min: 0, max: 65535 }),
);

/** One frame with any field possibly wrong. */
const anyFrame: fc.Arbitrary<FrameSpec> = fc.record(
  {
    fin: fc.boolean(),
    rsv: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 7 }) }),
    opcode: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(0, 1, 2, 8, 9, 10) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 15 }) },
    ),
    mask: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    payload,
    length: fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.record({
          form: fc.constantFrom(7 as const, 16 as const, 64 as const),
          value: fc.oneof(
            fc.constantFrom(
              0n,
              1n,
              125n,
              126n,
              65535n,
              65536n,
              2n ** 31n,
              2n ** 40n,
              2n ** 53n,
              2n ** 63n,
              2n ** 64n - 1n,
            ),
            fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          ),
        }),
      },
    ),
  },
  { requiredKeys: ['opcode'] },
);

/** A message cut into fragments, a frame (ping, text, close) maybe slipped in between. */
const fragmented: fc.Arbitrary<Buffer[]> = fc
  .tuple(payload, fc.integer({ min: 1, max: 5 }), fc.constantFrom(1, 2), fc.option(fc.constantFrom(1, 8, 9, 10)))
  .map(([p, parts, opcode, between]) => {
    const size = Math.max(1, Math.ceil(p.length / parts));
    const out: Buffer[] = [];
    for (let i = 0; i * size < p.length || i === 0; i++) {
      const last = (i + 1) * size >= p.length;
      out.push(frame({ opcode: i === 0 ? opcode : 0, fin: last, payload: p.subarray(i * size, (i + 1) * size) }));
      if (i === 0 && between !== null)
        out.push(frame({ opcode: between, payload: between === 8 ? closePayload(1000) : Buffer.from('x') }));
    }
    return out;
  });

/** What one step of a session writes. */
export const step: fc.Arbitrary<Buffer[]> = fc.oneof(
  // A well-framed text message carrying a mutated event (the common case: reach the pipeline).
  { weight: 5, arbitrary: payload.map((p) => [frame({ opcode: 1, payload: p })]) },
  { weight: 2, arbitrary: fragmented },
  { weight: 3, arbitrary: anyFrame.map((f) => [frame(f)]) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(closeCodes, fc.oneof(fc.constant(''), fc.string({ maxLength: 130 })), fc.boolean())
      .map(([code, reason, badUtf8]) => [
        frame({
          opcode: 8,
          payload: badUtf8 ? Buffer.concat([closePayload(code), Buffer.from([0xff])]) : closePayload(code, reason),
        }),
      ]),
  },
  // Control frames past 125 bytes, and pings and pongs as they should be.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(9, 10), fc.integer({ min: 0, max: 300 }))
      .map(([opcode, n]) => [frame({ opcode, payload: Buffer.alloc(n, 0x70) })]),
  },
);

/** A session: a few steps, the bytes written in pieces of random size, maybe cut off before the end. */
export type Session = { bytes: Buffer; pieces: number[]; cutAt: number | undefined };
export const sessions: fc.Arbitrary<Session> = fc
  .tuple(
    fc.array(step, { minLength: 1, maxLength: 6 }),
    fc.array(fc.integer({ min: 1, max: 4096 }), { maxLength: 8 }),
    // One session in six is cut off before its end.
    fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
  )
  .map(([steps, pieces, cut]) => {
    const bytes = Buffer.concat(steps.flat());
    return { bytes, pieces, cutAt: cut === null ? undefined : cut % Math.max(1, bytes.length) };
  });
