// Finding 3 of the hardening issue, re-run as a measurement (not a test): many clients declare a
// 1 MB body and trickle it one byte at a time, against polygate started on the default config.
// Unauthenticated ones should get their 401 and lose their connection at once; authenticated ones
// a 408 once listen.body_timeout_ms passes. Samples the gateway's open descriptors and RSS, and
// whether /healthz answered, twice a second; loopback only, bounded in time.
//
//   node bench/connection-probe.ts   (PROBE_UNAUTHENTICATED=5000 PROBE_AUTHENTICATED=200 PROBE_SECONDS=80 PROBE_TRICKLE_MS=1000)
import { readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rssMb as rssOf, startPolygate, trickler, type Trickler } from './probe-gateway.ts';

const root = resolve(import.meta.dirname, '..');
const unauthenticated = Number(process.env.PROBE_UNAUTHENTICATED ?? 5000);
const authenticated = Number(process.env.PROBE_AUTHENTICATED ?? 200);
const seconds = Number(process.env.PROBE_SECONDS ?? 80);
const trickleMs = Number(process.env.PROBE_TRICKLE_MS ?? 1000);

const gw = await startPolygate(root, process.env.GATEWAY_CONFIG ?? 'config/gateway.yaml', {
  POLYGATE_DB: join(mkdtempSync(join(tmpdir(), 'polygate-probe-')), 'polygate.db'),
  LOG_LEVEL: 'warn',
});
const port = gw.port;
const exited = (): boolean => gw.exited();

const fds = (): number => readdirSync(`/proc/${gw.pid}/fd`).length;
const rssMb = (): number => rssOf(gw.pid);

type Client = Trickler;

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
  if (exited()) return;
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
  for (let j = i; j < Math.min(unauthenticated, i + 500); j++)
    clients.unauth.push(trickler(port, undefined, trickleMs));
  await new Promise((r) => setTimeout(r, 50));
}
for (let i = 0; i < authenticated; i++) clients.auth.push(trickler(port, 'sk-polygate-demo', trickleMs));
const opened = Date.now();

const done = (): boolean => [...clients.unauth, ...clients.auth].every((c) => c.closed);
while (!done() && Date.now() - started < seconds * 1000 && !exited()) await new Promise((r) => setTimeout(r, 250));
const allClosedAfterS = done() ? (Date.now() - opened) / 1000 : undefined;
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 500));
const after = !exited() ? { fds: fds(), rssMb: rssMb() } : undefined;
for (const c of [...clients.unauth, ...clients.auth]) c.socket.destroy();

const count = (cs: Client[], status: number): { answered: number; closed: number } => ({
  answered: cs.filter((c) => c.status === status).length,
  closed: cs.filter((c) => c.closed).length,
});
const report = {
  unauthenticated: { sockets: unauthenticated, ...count(clients.unauth, 401) },
  authenticated: { sockets: authenticated, ...count(clients.auth, 408) },
  opening_took_s: (opened - started) / 1000,
  all_closed_after_s: allClosedAfterS,
  gateway_fds: { baseline: baseline.fds, peak: peak.fds, after: after?.fds },
  gateway_rss_mb: {
    baseline: Math.round(baseline.rssMb),
    peak: Math.round(peak.rssMb),
    after: after ? Math.round(after.rssMb) : undefined,
  },
  healthz: health,
  gateway_alive: !exited(),
};
console.log(JSON.stringify(report, null, 2));
gw.stop();
