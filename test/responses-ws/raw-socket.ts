// A bare `ws` client for what the SDK will not send (malformed JSON, unknown events, huge frames):
// messages are collected as parsed JSON, in order.
import WebSocket from 'ws';
import { TEST_KEY, type RunningGateway } from '../helpers/start-gateway.ts';

export type RawSocket = {
  ws: WebSocket;
  /** The next server message (parsed), waiting if none has come yet. */
  next(): Promise<Record<string, unknown>>;
  /** Messages up to and including the first whose type is in `types`. */
  until(...types: string[]): Promise<Record<string, unknown>[]>;
  closed: Promise<{ code: number; reason: string }>;
};

export function openRaw(gw: RunningGateway, key = TEST_KEY, headers: Record<string, string> = {}): Promise<RawSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${gw.port}/v1/responses`, {
    headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
  const inbox: Record<string, unknown>[] = [];
  const waiting: ((m: Record<string, unknown>) => void)[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as Record<string, unknown>;
    const w = waiting.shift();
    if (w) w(m);
    else inbox.push(m);
  });
  const next = (): Promise<Record<string, unknown>> => {
    const m = inbox.shift();
    return m ? Promise.resolve(m) : new Promise((resolve) => waiting.push(resolve));
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return new Promise((resolve, reject) => {
    ws.once('open', () =>
      resolve({
        ws,
        next,
        closed,
        until: async (...types) => {
          const out: Record<string, unknown>[] = [];
          for (;;) {
            const m = await next();
            out.push(m);
            if (types.includes(String(m.type))) return out;
          }
        },
      }),
    );
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`handshake answered ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', reject);
  });
}
