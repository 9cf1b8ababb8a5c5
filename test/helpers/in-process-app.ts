// A polygate app built in the test's own process: services opened from a config object
// (src/services/runtime/services.ts), createApp (src/app/app.ts) served on a loopback port, no signals and no spawned
// process. Several can run side by side; each has its own store, ledger, breakers and counters.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { stringify } from 'yaml';
import { createApp } from '../../src/app/app.ts';
import { formats as servedFormats, type FormatModule } from '../../src/infra/formats/formats.ts';
import { parseConfig } from '../../src/infra/config/load-config.ts';
import { createLogger } from '../../src/infra/log/logger.ts';
import { Runtime } from '../../src/services/runtime/runtime.ts';
import { closeServices, openServices, type Services } from '../../src/services/runtime/services.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startEmulators, type UpstreamKind } from './gateway-with-upstreams.ts';
import { testConfig } from './start-gateway.ts';

export type InProcessApp = {
  url: string;
  services: Services;
  /** The app's log lines so far, parsed. */
  logs: () => Record<string, unknown>[];
};

/**
 * Serves an app for `config` (a whole config object, e.g. from testConfig) until the test ends.
 * `share` hands it another app's services in place of its own (a control: what sharing would do);
 * `formats` replaces the list of wire formats served (test/structure/seventh-format.test.ts).
 */
export async function startInProcessApp(
  t: Test,
  config: Record<string, unknown>,
  share: Partial<Pick<Services, 'breakers' | 'rateCounter' | 'store'>> = {},
  formats?: readonly FormatModule[],
): Promise<InProcessApp> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  // Through the parser and validation an operator's file goes through (environment included).
  const runtime = new Runtime(parseConfig(stringify(config), 'in-process.yaml'));
  const services = { ...(await openServices({ current: runtime }, createLogger('info', sink))), ...share };
  const server = createServer(createApp(services, formats ?? servedFormats).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await closeServices(services);
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, services, logs: () => lines };
}

/** An in-process app with one emulated upstream per provider name (test/emulators/), as gatewayWithEmulators for a spawned one. */
export async function inProcessWithEmulators<N extends string>(
  t: Test,
  o: {
    upstreams: Record<N, UpstreamKind>;
    models: Record<string, unknown>;
    providers?: Record<string, unknown>;
    config?: Record<string, unknown>;
    formats?: readonly FormatModule[];
  },
): Promise<{ app: InProcessApp; up: Record<N, Emulator> }> {
  const emulators = await startEmulators(o.upstreams);
  t.teardown(() => emulators.close());
  const app = await startInProcessApp(
    t,
    testConfig({ ...o.config, providers: { ...emulators.providers, ...o.providers }, models: o.models }),
    {},
    o.formats,
  );
  return { app, up: emulators.up };
}
