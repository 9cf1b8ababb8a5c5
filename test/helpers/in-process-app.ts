// A polygate app built in the test's own process: services opened from a config object
// (src/services/runtime/services.ts), createApp (src/app/app.ts) served on a loopback port, no signals and no spawned
// process. Several can run side by side; each has its own store, ledger, breakers and counters
// (the metrics registry is the process's own, shared by every app in it).
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { stringify } from 'yaml';
import { createApp } from '../../src/app/app.ts';
import { formats as servedFormats, type FormatModule } from '../../src/infra/formats/formats.ts';
import { createGatewayServer } from '../../src/app/gateway-server.ts';
import { startTuneRunner } from '../../src/families/tune/task-runner.ts';
import { loadConfigFile, parseConfig } from '../../src/infra/config/load-config.ts';
import { createLogger } from '../../src/infra/log/logger.ts';
import { Runtime } from '../../src/services/runtime/runtime.ts';
import { closeServices, openServices, type Services } from '../../src/services/runtime/services.ts';
import { logReader, type Gateway } from './start-gateway.ts';

export type InProcessApp = {
  url: string;
  services: Services;
  /** The app's log lines so far, parsed. */
  logs: () => Record<string, unknown>[];
};

/**
 * A gateway served in this process, with what a test of a spawned one reads (test/helpers/start-gateway.ts:
 * url, port, output, logged, matchLog, stop) and no process: no signals, no exit code, no stdout
 * other than the log. The server is the one src/main.ts serves (src/app/gateway-server.ts:
 * timeouts, connection cap, Responses WebSockets) and music tasks run as they do there.
 */
export type InProcessGateway = Omit<Gateway, 'process' | 'configFile' | 'stop'> & {
  services: Services;
  /** The log lines so far, parsed. */
  logs: () => Record<string, unknown>[];
  stop(): Promise<void>;
};

/**
 * Starts an in-process gateway for `config` (a whole config object, e.g. from testConfig, or a
 * config file's path). `share` hands it another app's services in place of its own (a control:
 * what sharing would do); `formats` replaces the list of wire formats served
 * (test/structure/seventh-format.test.ts).
 */
export async function startInProcessGateway(
  config: Record<string, unknown> | string,
  o: { share?: Partial<Pick<Services, 'breakers' | 'rateCounter' | 'store'>>; formats?: readonly FormatModule[] } = {},
): Promise<InProcessGateway> {
  let out = '';
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  // Through the parser and validation an operator's file goes through (environment included).
  const ref = {
    current: new Runtime(
      typeof config === 'string' ? loadConfigFile(config) : parseConfig(stringify(config), 'in-process.yaml'),
    ),
  };
  const log = createLogger('info', sink);
  const services: Services = { ...(await openServices(ref, log)), ...o.share };
  const { server, responsesSockets } = createGatewayServer(
    createApp(services, o.formats ?? servedFormats),
    ref,
    log,
    services.keys,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  services.tuneRunner = startTuneRunner(services, { port });
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services,
    output: () => out,
    logs: () => lines,
    ...logReader(() => out),
    stop: () =>
      (stopped ??= (async () => {
        responsesSockets.terminate();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await closeServices(services);
      })()),
  };
}

/** startInProcessGateway, stopped when the test ends. */
export async function startInProcessApp(
  t: Test,
  config: Record<string, unknown>,
  share: Partial<Pick<Services, 'breakers' | 'rateCounter' | 'store'>> = {},
  formats?: readonly FormatModule[],
): Promise<InProcessApp> {
  const gw = await startInProcessGateway(config, { share, formats });
  t.teardown(() => gw.stop());
  return gw;
}
