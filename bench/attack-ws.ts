// The Responses WebSocket findings of issue #30 as attacks for bench/attack-suite.ts, one function
// each, `(url, key) => { requests, note }`: url is polygate's base URL (http://127.0.0.1:PORT), key
// a valid client key of the shipped config (model `echo`). Loopback only, bounded in count and time;
// they measure, never assert. `node bench/attack-ws.ts` runs the three against a polygate of its
// own (config/gateway.yaml) and prints RSS before and after each and whether /healthz answered
// (ATTACK_WS_ONLY=1,3,4 picks findings).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { closePayload, frame, openFrames, textFrame } from '../test/responses-ws/raw-frames.ts';
import { rssMb, startPolygate } from './probe-gateway.ts';

type Result = { requests: number; note: string };
const MB = 1024 * 1024;
const portOf = (url: string): number => Number(new URL(url).port);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** `p`, or `fallback` after `ms`. */
const within = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> =>
  Promise.race([p, sleep(ms).then(() => fallback)]);
const tally = (xs: (string | number)[]): string =>
  Object.entries(xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {}))
    .map(([x, n]) => `${n}x${x}`)
    .join(' ');

/** Finding 1: one malformed frame per socket, each of the eight kinds; the close code each got. */
export async function wsBadFrames(url: string, key: string): Promise<Result> {
  const kinds: [string, Buffer][] = [
    ['utf8', frame({ opcode: 1, payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) })],
    ['unmasked', frame({ opcode: 1, mask: false, payload: Buffer.from('{}') })],
    ['rsv1', frame({ opcode: 1, rsv: 0b100, payload: Buffer.from('{}') })],
    ['opcode3', frame({ opcode: 3, payload: Buffer.from('x') })],
    ['close999', frame({ opcode: 8, payload: closePayload(999) })],
    ['fragmented-ping', frame({ opcode: 9, fin: false, payload: Buffer.from('p') })],
    ['len2^40', frame({ opcode: 2, length: { form: 64, value: 2n ** 40n } })],
    // Past the shipped max_message_bytes (32 MiB) by its header alone.
    ['too-big', frame({ opcode: 1, length: { form: 64, value: BigInt(33 * MB) } })],
  ];
  const got: string[] = [];
  for (const [name, bytes] of kinds) {
    const s = await openFrames(portOf(url), key).catch((e: Error) => e);
    if (s instanceof Error) {
      got.push(`${name}:refused(${s.message})`);
      continue;
    }
    s.send(bytes);
    got.push(`${name}:${await within(s.closed, 5_000, 0)}`);
    s.socket.destroy();
  }
  const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status,
    () => 0,
  );
  return { requests: kinds.length, note: `close codes ${got.join(' ')}; /healthz ${health}` };
}

/**
 * Finding 3: one lane held by a slow response (a 4 MB echo answer the client does not read), then
 * `count` 200 KB response.create messages on that lane. Counts what was refused once it reads again.
 */
export async function wsLaneFlood(url: string, key: string, count = 400): Promise<Result> {
  const s = await openFrames(portOf(url), key);
  s.send(
    textFrame(JSON.stringify({ type: 'response.create', model: 'echo', store: false, input: 'h'.repeat(4 * MB) })),
  );
  s.socket.pause(); // the client stops reading: the response's events wait in polygate's send buffer
  await sleep(1_000);
  const filler = 'f'.repeat(200 * 1024);
  for (let i = 0; i < count; i++) {
    const ok = s.socket.write(
      textFrame(JSON.stringify({ type: 'response.create', model: 'echo', store: false, input: `${i} ${filler}` })),
    );
    if (!ok) await within(new Promise((r) => s.socket.once('drain', r)), 5_000, undefined);
  }
  await sleep(2_000); // polygate reads what was sent (and queues or refuses it) while the client still does not read
  s.socket.resume();
  const ends = (): string[] =>
    s.texts.flatMap((t) => {
      const type = /^\{"type":"([^"]+)"/.exec(t)?.[1];
      if (type === 'response.completed') return ['completed'];
      return type === 'error' ? [/"code":"([^"]+)"/.exec(t)?.[1] ?? 'error'] : [];
    });
  // Reads until every message has its end (bounded: 60 s).
  for (let waited = 0; ends().length < count + 1 && waited < 60_000; waited += 250) await sleep(250);
  s.send(frame({ opcode: 8, payload: closePayload(1000) }));
  await within(s.closed, 2_000, 0);
  s.socket.destroy();
  return { requests: count + 1, note: `${tally(ends())} (of ${count + 1} sent)` };
}

/** Finding 4: `sockets` sockets at once, each sending `turns` 1 MB `store: false` turns one after another. */
export async function wsSocketMemory(url: string, key: string, sockets = 8, turns = 30): Promise<Result> {
  const wsUrl = `${url.replace(/^http/, 'ws')}/v1/responses`;
  const outcomes: string[] = [];
  await Promise.all(
    Array.from({ length: sockets }, async (_, k) => {
      const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${key}` } });
      ws.on('error', () => {});
      const opened = await within(
        new Promise<boolean>((r) => {
          ws.once('open', () => r(true));
          ws.once('close', () => r(false));
        }),
        10_000,
        false,
      );
      if (!opened) return void outcomes.push('not-opened');
      for (let i = 0; i < turns; i++) {
        const end = new Promise<string>((resolve) => {
          const on = (data: WebSocket.RawData): void => {
            const m = JSON.parse(String(data)) as { type: string; error?: { code?: string } };
            if (m.type !== 'response.completed' && m.type !== 'error' && m.type !== 'response.failed') return;
            ws.off('message', on);
            resolve(m.type === 'error' ? (m.error?.code ?? 'error') : m.type.slice('response.'.length));
          };
          ws.on('message', on);
        });
        ws.send(
          JSON.stringify({
            type: 'response.create',
            model: 'echo',
            store: false,
            input: `${k}.${i} ${'m'.repeat(MB)}`,
          }),
        );
        outcomes.push(await within(end, 30_000, 'timeout'));
      }
      // Left open: what they remember is what this finding measures (the caller's RSS sample).
      setTimeout(() => ws.close(), 5_000).unref();
    }),
  );
  return { requests: sockets * turns, note: tally(outcomes) };
}

async function main(): Promise<void> {
  const root = resolve(import.meta.dirname, '..');
  const work = mkdtempSync(join(tmpdir(), 'polygate-attack-ws-'));
  const gw = await startPolygate(root, join(root, 'config/gateway.yaml'), {
    POLYGATE_DB: join(work, 'polygate.db'),
    LOG_LEVEL: 'warn',
  });
  const key = process.env.POLYGATE_KEY ?? 'sk-polygate-demo';
  // ATTACK_WS_ONLY=3,4: a subset (on a tree without the fix, finding 1 ends the process).
  const only = process.env.ATTACK_WS_ONLY ? new Set(process.env.ATTACK_WS_ONLY.split(',')) : undefined;
  await sleep(1_000);
  for (const [name, run] of [
    ['1 bad frames', wsBadFrames],
    ['3 lane flood', wsLaneFlood],
    ['4 socket memory', wsSocketMemory],
  ] as const) {
    if (only && !only.has(name.split(' ')[0]!)) continue;
    const before = rssMb(gw.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gw.pid) || 0)), 100);
    const t0 = performance.now();
    const r = await run(gw.url, key).catch((e: Error) => ({ requests: 0, note: `failed: ${e.message}` }));
    clearInterval(sampler);
    const health = await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (x) => x.status,
      () => 0,
    );
    console.log(
      `${name}: ${r.requests} sent in ${((performance.now() - t0) / 1000).toFixed(1)} s; RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} -> ${rssMb(gw.pid).toFixed(0)} MB; /healthz ${health}; alive ${!gw.exited()}; ${r.note}`,
    );
    await sleep(6_000); // the sockets of the finding close before the next one
  }
  gw.stop();
}

if (process.argv[1] === import.meta.filename) await main();
