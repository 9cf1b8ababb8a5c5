// Pieces the hardening probes share (bench/hardening-probe.ts, bench/connection-probe.ts,
// bench/attack-suite.ts): start polygate as `npm start` does (src/main.ts, a config file, port 0),
// read its RSS, send raw requests, and the hostile bodies of the hardening issue's findings.
// Loopback only; measurement, never assertions.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';

export const node = join(import.meta.dirname, '..', 'node_modules/.bin/node');

/** `stop` kills (SIGKILL) unless told otherwise; SIGTERM lets `--cpu-prof` write its profile. */
export type Gw = {
  url: string;
  port: number;
  pid: number;
  exited: () => boolean;
  stop: (signal?: NodeJS.Signals) => void;
};

/** Starts `src/main.ts` of checkout `dir` on config `file` (port 0), resolved once it listens. */
export async function startPolygate(
  dir: string,
  file: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Gw> {
  const child = spawn(node, [...nodeArgs, 'src/main.ts'], {
    cwd: dir,
    env: { ...process.env, ...env, GATEWAY_CONFIG: file, POLYGATE_ANNOUNCE: '1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const port = await new Promise<number>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /POLYGATE_LISTENING (\d+)/.exec(out);
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (c) => fail(new Error(`polygate exited with ${c}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    exited: () => exited,
    stop: (signal = 'SIGKILL') => void child.kill(signal),
  };
}

/** The process's resident set in MB; NaN once it is gone (crashed). */
export const rssMb = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return NaN;
  }
};

export async function post(
  url: string,
  path: string,
  body: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      'anthropic-version': '2023-06-01',
      ...headers,
    },
    body,
    signal: AbortSignal.timeout(600_000),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Finding 1: a json_schema of `levels` nested arrays, each with minItems 1000. */
export const nestedArrays = (levels: number): unknown => {
  let s: unknown = { type: 'integer' };
  for (let i = 0; i < levels; i++) s = { type: 'array', items: s, minItems: 1000 };
  return { type: 'object', properties: { a: s }, required: ['a'] };
};

/** Finding 4: a tool schema `levels` objects deep, as JSON text. */
export const deepSchema = (levels: number): string =>
  '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + '}}'.repeat(levels);

/** Finding 3: a client that declares a 1 MB Messages body and sends one byte every `trickleMs`. */
export type Trickler = { status?: number; closed: boolean; socket: Socket };
export function trickler(port: number, key: string | undefined, trickleMs: number): Trickler {
  const s = connect(port, '127.0.0.1');
  const c: Trickler = { closed: false, socket: s };
  let head = '';
  s.on('data', (b) => {
    head += b.toString('latin1');
    c.status ??= Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]) || undefined;
  });
  s.on('error', () => {});
  s.on('close', () => {
    c.closed = true;
    clearInterval(timer);
  });
  const auth = key ? `x-api-key: ${key}\r\n` : '';
  s.write(
    `POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\n${auth}content-length: 1000000\r\n\r\n{`,
  );
  const timer = setInterval(() => s.writable && s.write(' '), trickleMs);
  return c;
}
