// Starting, pinning and stopping the processes a benchmark run is made of. The gateway under test
// gets one core to itself; the mock upstream and the load generator share the other, so what is
// measured is the gateway's own cost, not a fight for the same core.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { sleep } from './stats.ts';

export const repoRoot = resolve(import.meta.dirname, '..');
/** Node 24 from the `node` devDependency (a real binary, so pids and RSS are the gateway's own). */
export const node24 = existsSync(join(repoRoot, 'node_modules/.bin/node'))
  ? join(repoRoot, 'node_modules/.bin/node')
  : process.execPath;

export const GATEWAY_CORE = 0;
export const LOAD_CORE = 1;

const hasTaskset = ((): boolean => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export const pinning = hasTaskset ? 'taskset' : 'none (taskset not found: processes float across cores)';

/** Pins the calling process (the load generator), all its threads (-a), to the load core. */
export function pinSelf(core: number): void {
  if (hasTaskset) execFileSync('taskset', ['-a', '-pc', String(core), String(process.pid)], { stdio: 'ignore' });
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => ok(port));
    });
  });
}

export type Proc = {
  name: string;
  port: number;
  url: string;
  /** The pid of the measured process itself (taskset execs into it). */
  pid: number;
  child: ChildProcess;
  /** What it printed on stderr (and stdout when captured), for error messages. */
  output(): string;
  stop(): Promise<void>;
};

/** `stdoutFile`: where the process's stdout (a gateway's request log) goes; default BENCH_GATEWAY_LOG, else /dev/null. */
type SpawnOpts = {
  core: number;
  cwd?: string;
  env?: Record<string, string>;
  captureStdout?: boolean;
  stdoutFile?: string;
};

function spawnPinned(command: string, args: string[], opts: SpawnOpts): ChildProcess {
  // stdout of a gateway is its per-request log: written to /dev/null it costs what a log write
  // costs, without the load generator's core spending time reading it.
  // BENCH_GATEWAY_LOG=FILE keeps it instead, to read polygate's own timings of a run.
  const stdout = opts.captureStdout
    ? 'pipe'
    : openSync(process.env.BENCH_GATEWAY_LOG ?? opts.stdoutFile ?? '/dev/null', 'a');
  const [cmd, argv] = hasTaskset ? ['taskset', ['-c', String(opts.core), command, ...args]] : [command, args];
  return spawn(cmd, argv, {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', stdout, 'pipe'],
  });
}

function wrap(name: string, child: ChildProcess, port: number, output: () => string): Proc {
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    child,
    output,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Waits until `GET url` answers at all (any status), or fails with what the process printed. */
async function waitForHttp(url: string, child: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${output()}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms:\n${output()}`);
}

/** Starts a Node program on its own port (picked here) and waits until it answers HTTP. */
export async function startNodeProcess(
  name: string,
  script: string,
  opts: SpawnOpts & { args?: (port: number) => string[]; nodeArgs?: string[]; readyPath?: string; port?: number },
): Promise<Proc> {
  const port = opts.port ?? (await freePort());
  const child = spawnPinned(node24, [...(opts.nodeArgs ?? []), script, ...(opts.args?.(port) ?? [])], {
    ...opts,
    env: { PORT: String(port), ...opts.env },
  });
  let out = '';
  child.stderr?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stdout?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  const proc = wrap(name, child, port, () => out);
  try {
    await waitForHttp(`${proc.url}${opts.readyPath ?? '/'}`, child, () => out);
  } catch (e) {
    await proc.stop();
    throw e;
  }
  return proc;
}

export type MockProcOptions = { latencyMs?: number; chunks: number; intervalMs: number };

export function startMockProcess(opts: MockProcOptions): Promise<Proc> {
  return startNodeProcess('mock', join(repoRoot, 'bench/mock-upstream.ts'), {
    core: LOAD_CORE,
    readyPath: '/__stats',
    args: (port) => [
      '--port',
      String(port),
      '--latency-ms',
      String(opts.latencyMs ?? 0),
      '--chunks',
      String(opts.chunks),
      '--interval-ms',
      String(opts.intervalMs),
    ],
  });
}

/**
 * The polygate checkout under test: this one, or BENCH_POLYGATE_DIR (another checkout or a copy of
 * this tree), to compare two versions with the same harness or to measure a snapshot while the
 * working tree is being edited.
 */
export const polygateDir = resolve(process.env.BENCH_POLYGATE_DIR ?? repoRoot);

/**
 * BENCH_BEFORE: an older checkout measured beside `polygateDir` in the same run (A/B), started
 * the same way (its own `src/main.ts`, the same config, the same core), or undefined.
 */
export const beforeDir = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : undefined;

/**
 * polygate as an operator runs it (`GATEWAY_CONFIG=FILE node src/main.ts`), on the gateway core;
 * `dir`: another checkout than polygateDir. Each start gets its own temporary folder for the
 * config, the sqlite store (POLYGATE_DB, see paths.ts) and, with `logToFile`, the request log
 * (`logFile`; BENCH_GATEWAY_LOG overrides it). The caller may delete `workDir` once it has stopped.
 */
export async function startPolygate(
  config: Record<string, unknown>,
  opts: { nodeArgs?: string[]; env?: Record<string, string>; dir?: string; name?: string; logToFile?: boolean } = {},
): Promise<Proc & { logFile?: string; workDir: string }> {
  const work = mkdtempSync(join(tmpdir(), 'polygate-bench-'));
  const file = join(work, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  const dir = opts.dir ?? polygateDir;
  const logFile = opts.logToFile ? (process.env.BENCH_GATEWAY_LOG ?? join(work, 'access.log')) : undefined;
  const proc = await startNodeProcess(opts.name ?? 'polygate', join(dir, 'src/main.ts'), {
    core: GATEWAY_CORE,
    cwd: dir,
    readyPath: '/healthz',
    nodeArgs: opts.nodeArgs,
    stdoutFile: logFile,
    env: {
      GATEWAY_CONFIG: file,
      POLYGATE_DB: join(work, 'polygate.db'),
      ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
      ...opts.env,
    },
  });
  return { ...proc, logFile, workDir: work };
}

/** Resident set size now and its peak since start (VmHWM), in bytes, from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in seconds. */
export function cpuSecondsOf(pid: number): number {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU time all cores have spent busy since boot, in seconds (from /proc/stat). */
export function machineBusySeconds(): number {
  try {
    const [, ...v] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal. Interrupt time is left out: loopback traffic
    // is processed there and charged to no process, so it would count our own work as someone
    // else's. Steal (another VM on the host) is counted: it disturbs the measurement all the same.
    return (v[0] + v[1] + v[2] + v[7]) / 100;
  } catch {
    return 0;
  }
}

/** Connections the kernel dropped because a listener's accept queue was full (machine-wide, since boot). */
export function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('TcpExt:'));
    const names = lines[0].split(/\s+/);
    const values = lines[1].split(/\s+/);
    return Number(values[names.indexOf('ListenOverflows')] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Starts watching how much CPU work that is not ours the machine does: busy time of all cores
 * minus the CPU time of `pids` and of this process. The returned function gives core-seconds so far.
 */
export function watchOtherCpu(pids: number[]): () => number {
  const ours = (): number => {
    const self = process.cpuUsage();
    return pids.reduce((n, pid) => n + cpuSecondsOf(pid), 0) + (self.user + self.system) / 1e6;
  };
  const busy0 = machineBusySeconds();
  const ours0 = ours();
  return () => Math.max(0, machineBusySeconds() - busy0 - (ours() - ours0));
}

/**
 * CPU time a process's live threads have used so far, in seconds, to the nanosecond (the
 * scheduler's own accounting, /proc/PID/task/TID/schedstat), where `cpuSecondsOf` counts 10 ms
 * ticks. A thread that exits between two readings takes its time with it: meant for long-lived
 * processes (Node's threads live as long as it does).
 */
export function cpuSecondsPrecise(pid: number, onlyMainThread = false): number {
  try {
    let ns = 0;
    // The main thread's id is the process id: JavaScript runs there; GC helpers, libuv's pool and workers elsewhere.
    for (const tid of onlyMainThread ? [String(pid)] : readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended while being read
      }
    }
    return ns / 1e9;
  } catch {
    return cpuSecondsOf(pid);
  }
}

/**
 * Time the process's main thread spent runnable but waiting for its core, in seconds
 * (/proc/PID/schedstat's second field): other work on the gateway's core. A measurement during
 * which it grew is a disturbed one.
 */
export function waitSecondsOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return 0;
  }
}
