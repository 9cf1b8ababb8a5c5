// Finding 3 of the hardening issue, re-run as a measurement (not a test): many clients declare a
// 1 MB body and trickle it one byte at a time, against polygate started on the default config.
// Unauthenticated ones should get their 401 and lose their connection at once; authenticated ones
// a 408 once listen.body_timeout_ms passes. Samples the gateway's open descriptors and RSS, and
// whether /healthz answered, twice a second; loopback only, bounded in time.
//
//   node bench/connection-probe.ts   (PROBE_UNAUTHENTICATED=5000 PROBE_AUTHENTICATED=200 PROBE_SECONDS=80 PROBE_TRICKLE_MS=1000)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const unauthenticated = Number(process.env.PROBE_UNAUTHENTICATED ?? 5000);
const authenticated = Number(process.env.PROBE_AUTHENTICATED ?? 200);
const seconds = Number(process.env.PROBE_SECONDS ?? 80);
const trickleMs = Number(process.env.PROBE_TRICKLE_MS ?? 1000);

const child = spawn(join(root, 'node_modules/.bin/node'), ['src/main.ts'], {
  cwd: root,
  env: { ...process.env, POLYGATE_ANNOUNCE: '1', PORT: '0', POLYGATE_DB: join(mkdtempSync(join(tmpdir(), 'polygate-probe-')), 'polygate.db'), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<number>((ok, fail) => {
  let out = '';
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
    const m = /POLYGATE_LISTENING (\d+)/.exec(out);
    if (m) ok(Number(m[1]));
  });
  child.once('exit', (code) => fail(new Error(`polygate exited with ${code}`)));
});
let exited: number | null | undefined;
child.once('exit', (code) => (exited = code));

const fds = (): number => readdirSync(`/proc/${child.pid}/fd`).length;
const rssMb = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

type Client = { status?: number; closed: boolean };
const sockets: Socket[] = [];
function trickler(key: string | undefined): Client {
  const c: Client = { closed: false };
  const s = connect(port, '127.0.0.1');
  sockets.push(s);
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
  s.write(`POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\n${auth}content-length: 1000000\r\n\r\n{`);
  const timer = setInterval(() => s.writable && s.write(' '), trickleMs);
  return c;
}

const baseline = { fds: fds(), rssMb: rssMb() };
const started = Date.now();
const clients: { unauth: Client[]; auth: Client[] } = { unauth: [], auth: [] };
let peak = { ...baseline };
const health = { ok: 0, failed: 0, failed_at_s: [] as number[] };
/** A probe that failed or took over 2 s, with when it was sent (seconds since the start). */
const fail = (): void => {
  health.failed++;
  health.failed_at_s.push(Math.round((Date.now() - started) / 100) / 10 - 2);
};
const sampler = setInterval(() => {
  if (exited !== undefined) return;
  try {
    peak = { fds: Math.max(peak.fds, fds()), rssMb: Math.max(peak.rssMb, rssMb()) };
  } catch {
    // the process is gone: reported below
  }
  fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
    (r) => (r.status === 200 ? health.ok++ : fail()),
    fail,
  );
}, 500);

// Open in batches, so the probe measures the gateway rather than the accept queue.
for (let i = 0; i < unauthenticated; i += 500) {
  for (let j = i; j < Math.min(unauthenticated, i + 500); j++) clients.unauth.push(trickler(undefined));
  await new Promise((r) => setTimeout(r, 50));
}
for (let i = 0; i < authenticated; i++) clients.auth.push(trickler('sk-polygate-demo'));
const opened = Date.now();

const done = (): boolean => [...clients.unauth, ...clients.auth].every((c) => c.closed);
while (!done() && Date.now() - started < seconds * 1000 && exited === undefined) await new Promise((r) => setTimeout(r, 250));
const allClosedAfterS = done() ? (Date.now() - opened) / 1000 : undefined;
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 500));
const after = exited === undefined ? { fds: fds(), rssMb: rssMb() } : undefined;
for (const s of sockets) s.destroy();

const count = (cs: Client[], status: number): { answered: number; closed: number } => ({ answered: cs.filter((c) => c.status === status).length, closed: cs.filter((c) => c.closed).length });
const report = {
  unauthenticated: { sockets: unauthenticated, ...count(clients.unauth, 401) },
  authenticated: { sockets: authenticated, ...count(clients.auth, 408) },
  opening_took_s: (opened - started) / 1000,
  all_closed_after_s: allClosedAfterS,
  gateway_fds: { baseline: baseline.fds, peak: peak.fds, after: after?.fds },
  gateway_rss_mb: { baseline: Math.round(baseline.rssMb), peak: Math.round(peak.rssMb), after: after ? Math.round(after.rssMb) : undefined },
  healthz: health,
  gateway_alive: exited === undefined,
};
console.log(JSON.stringify(report, null, 2));
child.kill('SIGTERM');
