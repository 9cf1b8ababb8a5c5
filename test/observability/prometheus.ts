// A real Prometheus (the Debian package) for the test: its own config and TSDB in a temp dir, on a
// free loopback port, scraping every second. Only its HTTP API is used, as Grafana would use it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../helpers/free-port.ts';

export const prometheusBin = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
export const promtoolBin = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

export type PromSample = { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] };
export type PromResponse = {
  status: 'success' | 'error';
  errorType?: string;
  error?: string;
  data?: { resultType: string; result: PromSample[] };
};

export type Prometheus = {
  url: string;
  configFile: string;
  /** GET /api/v1/query at the current time. */
  query(expr: string): Promise<PromResponse>;
  /** GET an API path (e.g. /api/v1/label/family/values) and return the parsed JSON. */
  api<T>(path: string): Promise<T>;
  output(): string;
  stop(): Promise<void>;
};

/** Runs promtool; returns its exit code and everything it printed. */
export function promtool(...args: string[]): { code: number | null; output: string } {
  const r = spawnSync(promtoolBin, args, { encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The scrape config for one polygate, as an operator would write it (see grafana/prometheus.yml). */
export function scrapeConfig(target: string, bearerToken?: string): Record<string, unknown> {
  return {
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    scrape_configs: [
      {
        job_name: 'polygate',
        scrape_interval: '1s',
        scrape_timeout: '1s',
        metrics_path: '/metrics',
        ...(bearerToken ? { authorization: { type: 'Bearer', credentials: bearerToken } } : {}),
        static_configs: [{ targets: [target] }],
      },
    ],
  };
}

export async function startPrometheus(config: Record<string, unknown>): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'polygate-prom-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    prometheusBin,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(url + path);
    return (await res.json()) as T;
  };
  const prom: Prometheus = {
    url,
    configFile,
    query: (expr) => api<PromResponse>(`/api/v1/query?query=${encodeURIComponent(expr)}`),
    api,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${out}`);
      return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200;
    },
    () => `prometheus did not become ready:\n${out}`,
  );
  return prom;
}

/** Polls `check` until it holds; fails with `why()` after the deadline. */
export async function waitFor(
  check: () => Promise<boolean>,
  why: () => string,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((ok) => setTimeout(ok, everyMs));
  }
}
