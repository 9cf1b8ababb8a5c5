// The listening server has an error listener (the design's rule for every emitter): a port that is
// taken ends the process with one line naming the address, not an uncaught 'error' event's stack.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startGateway, testConfig } from '../helpers/start-gateway.ts';

t.test('a taken port: exit 1 with a line naming it', async (t) => {
  const taken = createServer();
  await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise<void>((ok) => taken.close(() => ok())));
  const port = (taken.address() as AddressInfo).port;
  const started = startGateway(testConfig({}), { PORT: String(port) });
  const err = await started.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  t.ok(err, 'polygate does not start');
  t.match(err?.message, /exited with 1/, 'exit code 1');
  t.match(
    err?.message,
    new RegExp(`polygate cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
    'one line naming the address',
  );
  t.notMatch(err?.message, /Unhandled 'error' event/, "not an uncaught 'error' event");
});
