// Entry point: `npm start` (config/gateway.yaml) or `GATEWAY_CONFIG=FILE npm start`.
import { createServer } from 'node:http';
import { createApp } from './app.ts';
import { ConfigError, loadConfigFile } from './config/load-config.ts';
import { createLogger } from './log/logger.ts';
import { Runtime, type RuntimeRef } from './runtime.ts';
import { closeProcessStore, openProcessStore } from './store/open-store.ts';
import { startTuneRunner, type TuneRunner } from './tune/task-runner.ts';

const file = process.env.GATEWAY_CONFIG ?? 'config/gateway.yaml';
let ref: RuntimeRef;
try {
  ref = { current: new Runtime(loadConfigFile(file)) };
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
const log = createLogger(process.env.LOG_LEVEL ?? ref.current.config.log.level);
for (const w of ref.current.warnings) log.warn(w);
// One store per process (tasks, callbacks, stored responses), opened before serving and kept across reloads.
try {
  openProcessStore(ref.current.config.storage);
} catch (e) {
  console.error(`cannot open storage (${ref.current.config.storage.driver}): ${(e as Error).message}`);
  process.exit(1);
}
let tuneRunner: TuneRunner | undefined;

const app = createApp(ref, log);
const server = createServer(app.callback());
// Streams can be long: no server-side request timeout; upstream timeouts bound the work instead.
server.requestTimeout = 0;
server.keepAliveTimeout = 65_000;
const { host, port } = ref.current.config.listen;
const listenPort = process.env.PORT ? Number(process.env.PORT) : port;
server.listen(listenPort, host, () => {
  const addr = server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : listenPort;
  log.info({ host, port: actual, config: file }, 'polygate listening');
  // Music task polling and callback delivery resume from the store (tasks left by a previous run included).
  tuneRunner = startTuneRunner(ref, log, { port: actual });
  // A machine-readable line for tests and supervisors that start polygate on port 0.
  if (process.env.POLYGATE_ANNOUNCE) process.stdout.write(`POLYGATE_LISTENING ${actual}\n`);
});

const stop = (): void => {
  const tuneStopped = tuneRunner?.stop() ?? Promise.resolve();
  server.close(() => void tuneStopped.then(closeProcessStore).then(() => ref.current.close()).then(() => process.exit(0)));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 10_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
