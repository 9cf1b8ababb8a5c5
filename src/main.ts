// Entry point: `npm start` (config/gateway.yaml) or `GATEWAY_CONFIG=FILE npm start`.
// First: process-wide V8 settings (GC mode), before any other module runs.
import './app/v8-settings.ts';
import { createApp } from './app/app.ts';
import { formats } from './infra/formats/formats.ts';
import { ConfigError, loadConfigFile } from './infra/config/load-config.ts';
import { startConfigReload } from './app/reload-config.ts';
import { createLogger, writeAfterLog } from './infra/log/logger.ts';
import { Runtime, type RuntimeRef } from './services/runtime/runtime.ts';
import { closeServices, openServices, type Services } from './services/runtime/services.ts';
import { startTuneRunner } from './families/tune/task-runner.ts';
import { createGatewayServer } from './app/gateway-server.ts';
import { listenWithAcceptQueues } from './app/accept-queues.ts';

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
// The live services (store, ledger, tracer, breakers, rate counters, relay proxy), opened before
// serving and kept across reloads (src/services/runtime/services.ts).
let services: Services;
try {
  services = await openServices(ref, log);
} catch (e) {
  console.error(`polygate cannot start: ${(e as Error).message}`);
  process.exit(1);
}

const listen = ref.current.config.listen;
const { server, responsesSockets } = createGatewayServer(createApp(services, formats), ref, log, services.keys);

let draining = false;
/** Requests received: the drain waits until none has come for a moment. */
let received = 0;
server.on('request', (_req, res) => {
  received++;
  // While draining, each response ends its connection, so keep-alive clients move elsewhere.
  if (draining) res.setHeader('connection', 'close');
});

const { host, port } = listen;
const listenPort = process.env.PORT ? Number(process.env.PORT) : port;
// The server's own errors: before it listens (a port taken or refused) nothing can be served, so
// one line says why and the process ends; after, an accept error (descriptors exhausted) is
// logged and the server keeps serving the connections it has.
let listening = false;
server.on('error', (err: NodeJS.ErrnoException) => {
  if (listening) return log.error({ err }, 'server error');
  console.error(`polygate cannot listen on ${host}:${listenPort}: ${err.message}`);
  process.exit(1);
});
// A deep accept backlog: while the loop is busy, a burst of new connections (a thousand streams
// opening at once) would otherwise overflow Node's default of 511 and wait out a 1 s SYN retry.
// Several accept queues on the port: the loop accepts one connection per turn and queue (src/app/accept-queues.ts).
const acceptQueues = listenWithAcceptQueues(
  server,
  { port: listenPort, host, backlog: 4096, queues: listen.accept_queues },
  () => {
    listening = true;
    const addr = server.address();
    const actual = typeof addr === 'object' && addr ? addr.port : listenPort;
    log.info(
      { host, port: actual, config: file, max_connections: server.maxConnections, accept_queues: acceptQueues.count },
      'polygate listening',
    );
    // Music task polling and callback delivery resume from the store (tasks left by a previous run included).
    services.tuneRunner = startTuneRunner(services, { port: actual });
    // A machine-readable line for tests and supervisors that start polygate on port 0.
    if (process.env.POLYGATE_ANNOUNCE) writeAfterLog(log, `POLYGATE_LISTENING ${actual}\n`);
  },
);

const reloader = startConfigReload(file, ref, log);
process.on('SIGHUP', () => void reloader.reload('SIGHUP'));

/**
 * SIGTERM (and SIGINT): stop accepting connections, let requests and streams in flight (and
 * requests arriving on connections already open) finish up to shutdown_deadline_ms, then cut what is left, let background task steps end, close the store
 * (sqlite flushes, Redis quits) and the upstream pools, and exit 0. Work cut short is in the store
 * and resumes at the next start (or on another instance).
 */
async function shutdown(signal: string): Promise<void> {
  if (draining) return;
  draining = true;
  const deadlineMs = ref.current.config.shutdown_deadline_ms;
  log.info(
    { signal, in_flight: ref.current.inFlight, deadline_ms: deadlineMs },
    'shutting down: draining requests in flight',
  );
  // A last resort, should closing itself hang.
  setTimeout(() => process.exit(0), deadlineMs + 15_000).unref();
  reloader.close();
  const tuneStopped = services.tuneRunner?.stop() ?? Promise.resolve();
  // Stop accepting connections, but leave the open ones alone: http's own close() also closes every
  // connection without a response in progress, and under load some of those hold a request that
  // has arrived but is not parsed yet; the client then sees a reset instead of an answer. Requests
  // on open connections are served (each answer says `connection: close`) until the drain ends.
  acceptQueues.close();
  // Every request holds the runtime it started on (src/app/app.ts): the current one idle and the
  // ones replaced by reloads retired means no request is left.
  // Responses WebSockets close (1001) as their responses finish; their responses are requests in flight too.
  const allDone = (async () => {
    await Promise.all([ref.current.idle(), reloader.retiring(), responsesSockets.drain()]);
    // A client whose answer came without `connection: close` (it started before the signal) may
    // send its next request on that connection at once: served too, until a quiet moment.
    for (let seen = -1; seen !== received;) {
      seen = received;
      await new Promise((r) => setTimeout(r, 250));
      await ref.current.idle();
    }
    return true;
  })();
  const inTime = await Promise.race([
    allDone,
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), deadlineMs).unref()),
  ]);
  // Kept-alive connections that carried no request during the drain.
  server.closeIdleConnections();
  if (!inTime) {
    log.warn({ in_flight: ref.current.inFlight }, 'shutdown deadline reached: cutting the requests still in flight');
    server.closeAllConnections();
    responsesSockets.terminate();
  }
  await tuneStopped;
  await reloader.retiring();
  // The ledger writes its last records into the store before the store closes.
  await closeServices(services);
  log.info('polygate stopped');
  // Log lines are written asynchronously; pino writes out what is pending as the process exits.
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

// A safety net that only records: an error nothing handled is logged as such before the process
// ends as it would have anyway. Every known failure (a spawn's EMFILE included) is handled where
// it happens; this makes an unknown one visible in the JSON log.
process.on('uncaughtException', (err) => {
  log.fatal({ err }, 'uncaught exception: exiting');
  log.flush();
  process.exit(1);
});
process.on('unhandledRejection', (err) => {
  log.fatal({ err }, 'unhandled promise rejection: exiting');
  log.flush();
  process.exit(1);
});
