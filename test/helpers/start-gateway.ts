// Starts a real polygate process on a loopback port with a config written for the test, the way
// an operator would run it (`GATEWAY_CONFIG=FILE npm start`), and stops it afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { waitFor } from './wait-for.ts';

export const repoRoot = resolve(import.meta.dirname, '../..');
/** Node 24 from the `node` devDependency, whichever node runs the test runner. */
export const node24 = join(repoRoot, 'node_modules/.bin/node');

export const TEST_KEY = 'sk-test-key-0001';
export const OTHER_KEY = 'sk-test-key-0002';

export type Gateway = {
  url: string;
  port: number;
  configFile: string;
  /** Everything the process printed (JSON log lines). */
  output: () => string;
  /**
   * The output once it matches `pattern` (or as it is after `ms`, for the assertion to show):
   * log lines are written in batches (src/infra/log/logger.ts) and a pipe's data can arrive after
   * the response or the exit it followed, so a test waits for a line rather than reading at once.
   */
  logged(pattern: RegExp, ms?: number): Promise<string>;
  /** `t.match` of the output against `pattern`, once it matches or after 5 s (`logged`). */
  matchLog(
    t: { match(found: unknown, wanted: unknown, ...rest: [] | [string]): unknown },
    pattern: RegExp,
    message?: string,
  ): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  process: ChildProcess;
};

/** What a test reads of a gateway, spawned (startGateway) or in-process (startInProcessGateway). */
export type RunningGateway = Pick<Gateway, 'url' | 'port' | 'output' | 'logged' | 'matchLog'> & {
  stop(): Promise<unknown>;
};

/** A config with two keys (workspaces `ws1`, `ws2`) and the given providers and models. */
export function testConfig(extra: {
  providers?: Record<string, unknown>;
  models?: Record<string, unknown>;
  [k: string]: unknown;
}): Record<string, unknown> {
  const { providers = {}, models = {}, ...rest } = extra;
  return {
    listen: { host: '127.0.0.1', port: 0 },
    storage: { driver: 'memory' },
    keys: [
      { id: 'test', secret: TEST_KEY, workspace: 'ws1', models: ['*'] },
      { id: 'other', secret: OTHER_KEY, workspace: 'ws2', models: ['echo*'] },
    ],
    providers: { echo: { type: 'echo' }, ...providers },
    models: { echo: { routes: [{ provider: 'echo', model: 'echo-1' }] }, ...models },
    ...rest,
  };
}

/** `logged` and `matchLog` over a gateway's output so far (spawned or in-process). */
export function logReader(output: () => string): Pick<Gateway, 'logged' | 'matchLog'> {
  const logged = async (pattern: RegExp, ms = 5_000): Promise<string> => {
    // Past `ms` the output as it is goes to the assertion, which then shows what was logged.
    await waitFor(`a log line matching ${pattern}`, async () => (pattern.test(output()) ? true : undefined), ms).catch(
      () => {},
    );
    return output();
  };
  return {
    logged,
    async matchLog(t, pattern, message) {
      if (message === undefined) t.match(await logged(pattern), pattern);
      else t.match(await logged(pattern), pattern, message);
    },
  };
}

export async function startGateway(
  config: Record<string, unknown> | string,
  env: Record<string, string> = {},
): Promise<Gateway> {
  let configFile: string;
  if (typeof config === 'string') configFile = config;
  else {
    configFile = join(mkdtempSync(join(tmpdir(), 'polygate-test-')), 'gateway.yaml');
    writeFileSync(configFile, stringify(config));
  }
  const child = spawn(node24, ['src/main.ts'], {
    cwd: repoRoot,
    // POLYGATE_DB: a config that stores in sqlite at the default path (the shipped one) gets a
    // database of its own, so parallel test files never share ./data/polygate.db.
    env: {
      ...process.env,
      GATEWAY_CONFIG: configFile,
      POLYGATE_ANNOUNCE: '1',
      PORT: '0',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      POLYGATE_DB: join(mkdtempSync(join(tmpdir(), 'polygate-db-')), 'polygate.db'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise<number>((ok, fail) => {
    // A bound for a start that will never come, not a speed check: loading the gateway's modules
    // took over 20 s on a loaded machine, failing tests that had nothing wrong (tap's per-file
    // timeout still ends a hung file).
    const timer = setTimeout(() => fail(new Error(`polygate did not start:\n${out}`)), 60_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /POLYGATE_LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`polygate exited with ${code}:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    configFile,
    output: () => out,
    ...logReader(() => out),
    process: child,
    stop: async (signal = 'SIGTERM') => {
      const code = await new Promise<number | null>((done) => {
        if (child.exitCode !== null) return done(child.exitCode);
        child.once('exit', (c) => done(c));
        child.kill(signal);
      });
      // 'exit' can come before the last of the pipe's data: what the process wrote on its way out
      // (pino's final flush) is in `output()` once stdout has ended (a grandchild holding the pipe
      // open must not hold the test: 2 s at most).
      if (!child.stdout!.readableEnded) {
        await new Promise<void>((done) => {
          const timer = setTimeout(done, 2_000);
          child.stdout!.once('end', () => {
            clearTimeout(timer);
            done();
          });
        });
      }
      return code;
    },
  };
}
