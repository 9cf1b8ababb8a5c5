// Issue #30, finding 1: one malformed frame from a key holder made the `ws` socket emit 'error'
// with nobody listening, and the process exited for every tenant. Each variant must now end in
// the RFC 6455 close code (1002 protocol error, 1007 invalid UTF-8, 1009 message too big), be
// logged once on the socket's close line, and leave the gateway serving.
import t from 'tap';
import { startGateway, testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { closePayload, frame, openFrames } from './raw-frames.ts';

const maxMessage = 64 * 1024;
const config = testConfig({ responses_websocket: { max_message_bytes: maxMessage } });

/** `error` is ws's code for the failure, which the socket's close line names. */
const variants: { name: string; bytes: () => Buffer; code: number; error: string }[] = [
  {
    name: 'invalid UTF-8 in a text frame',
    bytes: () => frame({ opcode: 1, payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }),
    code: 1007,
    error: 'WS_ERR_INVALID_UTF8',
  },
  {
    name: 'an unmasked client frame',
    bytes: () => frame({ opcode: 1, mask: false, payload: Buffer.from('{}') }),
    code: 1002,
    error: 'WS_ERR_EXPECTED_MASK',
  },
  {
    name: 'RSV1 set without an extension',
    bytes: () => frame({ opcode: 1, rsv: 0b100, payload: Buffer.from('{}') }),
    code: 1002,
    error: 'WS_ERR_UNEXPECTED_RSV_1',
  },
  {
    name: 'a reserved opcode (0x3)',
    bytes: () => frame({ opcode: 3, payload: Buffer.from('x') }),
    code: 1002,
    error: 'WS_ERR_INVALID_OPCODE',
  },
  {
    name: 'a close code of 999',
    bytes: () => frame({ opcode: 8, payload: closePayload(999) }),
    code: 1002,
    error: 'WS_ERR_INVALID_CLOSE_CODE',
  },
  {
    name: 'a fragmented ping',
    bytes: () => frame({ opcode: 9, fin: false, payload: Buffer.from('p') }),
    code: 1002,
    error: 'WS_ERR_EXPECTED_FIN',
  },
  {
    name: 'a 64-bit length header of 2^40',
    bytes: () => frame({ opcode: 2, length: { form: 64, value: 2n ** 40n } }),
    code: 1009,
    error: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
  },
  {
    name: 'a message over max_message_bytes',
    bytes: () => frame({ opcode: 1, payload: Buffer.alloc(maxMessage + 1, 0x61) }),
    code: 1009,
    error: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
  },
];

let gw: Gateway | undefined;
/** The shared gateway, started again if a variant stopped it (so each variant is tested on its own). */
async function gateway(): Promise<Gateway> {
  if (gw && gw.process.exitCode === null && gw.process.signalCode === null) return gw;
  gw = await startGateway(config);
  return gw;
}
t.teardown(() => gw?.stop());

/** Close lines naming ws error `code` so far. */
const closeLines = (g: Gateway, code: string): number =>
  g
    .output()
    .split('\n')
    .filter((l) => l.includes(`"ws_error_code":"${code}"`) && l.includes('responses websocket closed')).length;

for (const v of variants) {
  t.test(v.name, async (t) => {
    const g = await gateway();
    const before = closeLines(g, v.error);
    const s = await openFrames(g.port, TEST_KEY);
    s.send(v.bytes());
    t.equal(await s.closed, v.code, `closed with ${v.code}`);
    // Answer the close as a client does: the server then ends the connection and logs it.
    s.socket.end(frame({ opcode: 8, payload: closePayload(1000) }));
    await waitFor('the close line', async () => (closeLines(g, v.error) > before ? true : undefined), 5_000).catch(
      () => {},
    );
    t.equal(closeLines(g, v.error) - before, 1, `logged once, as ${v.error}`);
    const health = await fetch(`${g.url}/healthz`);
    t.equal(health.status, 200, '/healthz still answers');
    t.equal(g.process.exitCode, null, 'the process has not exited');
    t.equal(g.process.signalCode, null, 'nor been killed');
  });
}
