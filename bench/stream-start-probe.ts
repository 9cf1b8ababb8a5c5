// Preloaded into polygate by `BENCH_SOAK_PROBE=FILE npm run bench:soak` (node --import): timestamps of each
// phase of every request's start, and the event loop's delay and utilization every 250 ms, appended to FILE
// as JSON lines (src/ stays untouched). `node bench/stream-start-report.ts FILE` reads them. Issue #28.
//
// Phases (epoch ms): accepted (the server's 'connection'), request (headers parsed, 'request' emitted),
// upCreate (undici request created), upConnected (a new upstream connection, if one was made), upSent
// (its headers written), upHeaders (the upstream's status line and headers), upFirstChunk (its first
// body bytes), head (res.writeHead), write (the first res.write or res.end).
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

type Rec = Record<string, number>;
const file = process.env.PROBE_FILE;
if (!file) throw new Error('PROBE_FILE is required');
const now = (): number => performance.timeOrigin + performance.now();
const als = new AsyncLocalStorage<Rec>();
const accepted = new WeakMap<Socket, number>();
const ofRes = new WeakMap<object, Rec>();
const ofUp = new WeakMap<object, Rec>();
let done: Rec[] = [];

const emit = Server.prototype.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]): boolean {
  if (event === 'connection') accepted.set(args[0] as Socket, now());
  if (event !== 'request') return emit.call(this, event, ...args);
  const res = args[1] as ServerResponse;
  const rec: Rec = { request: now(), accepted: accepted.get(res.socket as Socket) ?? 0 };
  ofRes.set(res, rec);
  res.once('finish', () => done.push(rec));
  return als.run(rec, () => emit.call(this, event, ...args));
} as typeof Server.prototype.emit;

const writeHead = ServerResponse.prototype.writeHead;
ServerResponse.prototype.writeHead = function (this: ServerResponse, ...a: unknown[]) {
  const r = ofRes.get(this);
  if (r && r.head === undefined) r.head = now();
  return (writeHead as (...x: unknown[]) => ServerResponse).apply(this, a);
} as typeof writeHead;
for (const m of ['write', 'end'] as const) {
  const orig = ServerResponse.prototype[m] as (...x: unknown[]) => unknown;
  (ServerResponse.prototype as unknown as Record<string, unknown>)[m] = function (
    this: ServerResponse,
    ...a: unknown[]
  ) {
    const r = ofRes.get(this);
    if (r && r.write === undefined) r.write = now();
    return orig.apply(this, a);
  };
}

type UpMsg = { request: object; connector?: unknown };
subscribe('undici:request:create', (m) => {
  const rec = als.getStore();
  if (rec && rec.upCreate === undefined) {
    rec.upCreate = now();
    ofUp.set((m as UpMsg).request, rec);
  }
});
const mark = (channel: string, field: string): void =>
  subscribe(channel, (m) => {
    const rec = ofUp.get((m as UpMsg).request);
    if (rec && rec[field] === undefined) rec[field] = now();
  });
mark('undici:client:sendHeaders', 'upSent');
mark('undici:request:headers', 'upHeaders');
mark('undici:request:bodyChunkReceived', 'upFirstChunk');
subscribe('undici:client:connected', () => {
  const rec = als.getStore();
  if (rec) rec.upConnected = now();
});

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
let elu = performance.eventLoopUtilization();
setInterval(() => {
  const e = performance.eventLoopUtilization(elu);
  elu = performance.eventLoopUtilization();
  const loop = {
    t: now(),
    loop: true,
    elu: e.utilization,
    p50: delay.percentile(50) / 1e6,
    p99: delay.percentile(99) / 1e6,
    max: delay.max / 1e6,
  };
  delay.reset();
  const lines = [JSON.stringify(loop), ...done.map((r) => JSON.stringify(r))];
  done = [];
  appendFileSync(file, `${lines.join('\n')}\n`);
}, 250).unref();
