// WebSocket frames byte by byte, below what any WebSocket library will send: a handshake over a
// bare TCP socket, then frames built field by field (FIN, RSV bits, opcode, mask, any length
// header, any payload), and the close code the server answers with. The regression tests of the
// bad-frame findings (issue #30), the wire fuzzer (test/fuzz/wire-websocket.test.ts) and
// bench/attack-ws.ts share it. Loopback only.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export type FrameSpec = {
  fin?: boolean;
  /** RSV1..RSV3 as the three bits 0b100, 0b010, 0b001. */
  rsv?: number;
  opcode: number;
  /** Client frames must be masked (RFC 6455 5.1); false sends one unmasked. */
  mask?: boolean;
  payload?: Buffer;
  /** A length header that lies: the 7-bit, 16-bit or 64-bit form with this value, whatever the payload. */
  length?: { form: 7 | 16 | 64; value: bigint };
};

/** One frame as bytes. */
export function frame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const mask = spec.mask ?? true;
  const b0 = ((spec.fin ?? true) ? 0x80 : 0) | (((spec.rsv ?? 0) & 7) << 4) | (spec.opcode & 0x0f);
  const len = spec.length ?? {
    form: payload.length < 126 ? 7 : payload.length < 65536 ? 16 : 64,
    value: BigInt(payload.length),
  };
  const m = mask ? 0x80 : 0;
  let head: Buffer;
  if (len.form === 7) head = Buffer.from([b0, m | Number(len.value & 0x7fn)]);
  else if (len.form === 16) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = m | 126;
    head.writeUInt16BE(Number(len.value & 0xffffn), 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = m | 127;
    head.writeBigUInt64BE(BigInt.asUintN(64, len.value), 2);
  }
  if (!mask) return Buffer.concat([head, payload]);
  const key = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= key[i & 3]!;
  return Buffer.concat([head, key, body]);
}

/** A close frame's payload: the code, then the reason. */
export const closePayload = (code: number, reason = ''): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(code & 0xffff);
  return Buffer.concat([b, Buffer.from(reason)]);
};

export type FrameSocket = {
  socket: Socket;
  send(bytes: Buffer): void;
  /** The code of the server's close frame (1005 when it had none), or 1006 when the TCP connection ended without one. */
  closed: Promise<number>;
  /** Text messages the server sent (unfragmented frames only: polygate sends nothing else). */
  texts: string[];
};

/**
 * Opens `GET /v1/responses` as a WebSocket over a bare TCP socket. Rejects with the status when
 * the handshake is refused.
 */
export function openFrames(port: number, key: string, path = '/v1/responses'): Promise<FrameSocket> {
  const socket = connect(port, '127.0.0.1');
  // A server that resets the connection must not fail the caller by an unhandled 'error'.
  socket.on('error', () => {});
  let buf: Buffer = Buffer.alloc(0);
  let upgraded = false;
  const texts: string[] = [];
  let settle: (code: number) => void = () => {};
  const closed = new Promise<number>((resolve) => (settle = resolve));
  socket.once('close', () => settle(1006));
  return new Promise((resolve, reject) => {
    socket.once('connect', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
          `Authorization: Bearer ${key}\r\n\r\n`,
      ),
    );
    socket.once('close', () => reject(new Error('closed before the handshake')));
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(buf.subarray(0, end).toString())?.[1]);
        if (status !== 101) return reject(Object.assign(new Error(`handshake answered ${status}`), { status }));
        upgraded = true;
        buf = buf.subarray(end + 4);
        resolve({ socket, send: (bytes) => void socket.write(bytes), closed, texts });
      }
      buf = readServerFrames(buf, texts, settle);
    });
  });
}

/** Reads the complete (unmasked) server frames at the start of `buf`; returns what is left. */
function readServerFrames(buf: Buffer, texts: string[], onClose: (code: number) => void): Buffer {
  for (;;) {
    if (buf.length < 2) return buf;
    let len = buf[1]! & 0x7f;
    let at = 2;
    if (len === 126) {
      if (buf.length < 4) return buf;
      len = buf.readUInt16BE(2);
      at = 4;
    } else if (len === 127) {
      if (buf.length < 10) return buf;
      len = Number(buf.readBigUInt64BE(2));
      at = 10;
    }
    if (buf.length < at + len) return buf;
    const opcode = buf[0]! & 0x0f;
    const payload = buf.subarray(at, at + len);
    if (opcode === 1) texts.push(payload.toString());
    if (opcode === 8) onClose(payload.length >= 2 ? payload.readUInt16BE(0) : 1005);
    buf = buf.subarray(at + len);
  }
}

/** `text` as one masked text frame. */
export const textFrame = (text: string): Buffer => frame({ opcode: 1, payload: Buffer.from(text) });
