// After kill -9 of the instance holding a task's lease, another instance on the same Redis takes
// the task over once the lease has run out, finishes it and delivers its callback.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import { startGateway } from '../helpers/start-gateway.ts';
import { submit, untilFinished, waitFor } from '../tune/tune-helpers.ts';
import { startHookReceiver } from '../tune/hook-receiver.ts';
import { sharedConfig } from './redis-helpers.ts';
import { startRedis } from './redis-server.ts';

const redis = await startRedis();
const up = await startTuneUpstream();
const receiver = await startHookReceiver();

// In front of the music upstream: while `stalling`, task queries get no answer, so the instance
// that sent one is caught holding the task's lease.
let stalling = false;
const stalled: IncomingMessage[] = [];
const origin = up.url.replace(/\/tune$/, '');
const front = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (stalling && req.url?.startsWith('/tune/fetch')) {
    stalled.push(req);
    return;
  }
  const r = await fetch(`${origin}${req.url}`, {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
  res.end(Buffer.from(await r.arrayBuffer()));
});
await new Promise<void>((ok) => front.listen(0, '127.0.0.1', ok));
const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/tune`;

const config = sharedConfig(redis.url, { ...up, url: frontUrl });
const a = await startGateway(config);
let b: Awaited<ReturnType<typeof startGateway>> | undefined;
t.teardown(async () => {
  // A killed child has a signalCode, not an exitCode: stop() would wait for an exit already past.
  await Promise.all([a.process.signalCode === null ? a.stop() : undefined, b?.stop()]);
  front.closeAllConnections();
  await new Promise<void>((ok) => front.close(() => ok()));
  await Promise.all([up.close(), receiver.close()]);
  await redis.stop();
});

t.test('kill -9 of the lease holder: the other instance finishes the task and its callback', async (t) => {
  up.script({ statuses: ['SUCCESS'] });
  stalling = true;
  const id = await submit(a, '/tune/submit/music', {
    prompt: 'p',
    title: 'Taken Over',
    tags: 'pop',
    notify_hook: `${receiver.url}/hook`,
  });
  await waitFor('A to poll the task and hang holding its lease', async () => (stalled.length > 0 ? true : undefined));
  b = await startGateway(config);
  const killed = new Promise((ok) => a.process.once('exit', ok));
  a.process.kill('SIGKILL');
  await killed;
  stalling = false;
  const done = await untilFinished(b, id);
  t.equal(done.status, 'SUCCESS', 'B finished the task A was polling');
  await waitFor('the callback', async () => (receiver.received.length > 0 ? true : undefined));
  t.equal(receiver.received.length, 1, 'delivered once');
  t.match(JSON.parse(receiver.received[0].body), { task_id: id, status: 'SUCCESS' });
});
