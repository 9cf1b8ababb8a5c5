// `node bench/admission-micro.ts`: CPU of the per-request admission steps issue #28's session 11
// changed, in this process, for this checkout and (BENCH_BEFORE) an older one, alternating rounds:
// the key limits on the memory counter (enforceKeyLimits with rpm and concurrency, the tpm
// reservation and its settlement, the slot released at the response's close) and the body's
// receive deadline (set, then cancelled as the response ends), each request a fresh fake request
// and response (EventEmitters with the fields the code reads). Single-threaded and in-process:
// steadier than a gateway under load on a shared machine. Figures (µs per request) go to stderr.
import { EventEmitter } from 'node:events';
import { beforeDir, repoRoot } from './processes.ts';

const dirs = [repoRoot, ...(beforeDir ? [beforeDir] : [])];

/** µs of process CPU per call of `step`, 32 calls a turn, each turn's promises settled before the next. */
async function perCall(n: number, step: () => unknown): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n;) {
    const pending: unknown[] = [];
    for (let k = 0; k < 32 && i < n; k++, i++) pending.push(step());
    await Promise.all(pending);
    await new Promise((ok) => setImmediate(ok));
  }
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}

type Mod = Record<string, (...a: never[]) => unknown>;

async function stepsOf(dir: string): Promise<{ name: string; limits: () => unknown; deadline: () => unknown }> {
  const limits = (await import(`${dir}/src/services/access/key-limits.ts`)) as Mod;
  const { MemoryRateCounter } = (await import(`${dir}/src/services/limits/memory-rate-counter.ts`)) as {
    MemoryRateCounter: new () => unknown;
  };
  const deadline = (await import(`${dir}/src/infra/http/receive-deadline.ts`)) as Mod;
  const rateCounter = new MemoryRateCounter();
  const key = { id: 'bench', workspace: 'w', limits: { rpm: 1e9, tpm: 1e12, concurrency: 1e6 } };
  const services = { rateCounter, log: { warn: () => {} } };
  const prompt = () => 250;
  const usage = { inputTokens: 240, outputTokens: 40 };
  const next = async (): Promise<void> => {};
  const enforce = limits.enforceKeyLimits as (ctx: unknown, next: () => Promise<void>) => Promise<void>;
  const reserve = limits.reserveTokens as (state: unknown, p: () => number) => Promise<void> | undefined;
  const settle = limits.settleTokens as (state: unknown, u: unknown) => void;
  const answer = () => ({ status: 408, body: {}, extraHeaders: {} });
  const set = deadline.receiveDeadline as (...a: unknown[]) => unknown;
  const cancel = deadline.cancelDeadline as ((d: unknown) => void) | undefined;
  return {
    name: dir === repoRoot ? 'this checkout' : `before (${dir})`,
    limits: async () => {
      const res = Object.assign(new EventEmitter(), { closed: false });
      const state = { key, services };
      await enforce({ method: 'POST', path: '/v1/messages', res, state }, next);
      await reserve(state, prompt);
      settle(state, usage);
      res.closed = true;
      res.emit('close');
    },
    deadline: () => {
      const req = Object.assign(new EventEmitter(), {
        headers: { 'content-length': '1200' },
        complete: false,
      });
      const res = new EventEmitter();
      // The tree before returns a cancel function; this one a deadline for cancelDeadline.
      const d = cancel ? set(req, res, 60_000, answer, undefined) : set(req, res, 60_000, answer);
      req.complete = true;
      req.emit('end');
      if (cancel) cancel(d);
      else (d as () => void)();
    },
  };
}

const all = await Promise.all(dirs.map(stepsOf));
const results = new Map(all.map((s) => [s.name, { limits: [] as number[], deadline: [] as number[] }]));
for (let round = 0; round < 6; round++)
  for (const s of round % 2 === 0 ? all : [...all].reverse()) {
    const r = results.get(s.name)!;
    r.limits.push(await perCall(100_000, s.limits));
    r.deadline.push(await perCall(200_000, s.deadline));
  }
const med = (a: number[]): string => [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(3);
process.stderr.write('| checkout | key limits µs | receive deadline µs |\n|---|---:|---:|\n');
for (const [name, r] of results) process.stderr.write(`| ${name} | ${med(r.limits)} | ${med(r.deadline)} |\n`);
