// A request's "client left" (src/families/chat/client-left.ts): `aborted` without a signal reads the
// response as the `close` listener would have; the signal, once asked for, aborts when the client
// goes and never when the answer was written.
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ClientLeft } from '../../src/families/chat/client-left.ts';

/** One request to a server whose handler gets the response; `leave` cuts the client after it was sent. */
async function withResponse(leave: boolean, handle: (res: ServerResponse) => Promise<void>): Promise<void> {
  let done: Promise<void> | undefined;
  const server = createServer((_req, res) => {
    done = handle(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const req = request({ port, host: '127.0.0.1', method: 'POST', headers: { 'content-length': '10' } });
  req.on('error', () => {});
  req.on('response', (r) => r.resume());
  req.write('x');
  while (done === undefined) await new Promise((ok) => setTimeout(ok, 5));
  if (leave) req.destroy();
  await done;
  req.destroy();
  await new Promise((ok) => server.close(ok));
}

const closed = (res: ServerResponse): Promise<void> => new Promise((ok) => res.once('close', () => ok()));

t.test('a client that leaves: aborted without a signal, and a signal asked for afterwards is aborted', async (t) => {
  await withResponse(true, async (res) => {
    const left = new ClientLeft(res);
    t.equal(left.aborted, false, 'not before it leaves');
    await closed(res);
    t.equal(left.aborted, true, 'read from the response');
    t.equal(left.signal.aborted, true, 'the late signal starts aborted');
    t.equal(left.aborted, true);
  });
});

t.test('a signal asked for first is aborted when the client leaves', async (t) => {
  await withResponse(true, async (res) => {
    const left = new ClientLeft(res);
    const signal = left.signal;
    t.equal(signal.aborted, false);
    const aborted = new Promise((ok) => signal.addEventListener('abort', ok));
    await aborted;
    t.equal(left.aborted, true);
    t.equal(left.signal, signal, 'one signal per request');
  });
});

t.test('an answer written in full is not a client that left, before or after the signal', async (t) => {
  await withResponse(false, async (res) => {
    const early = new ClientLeft(res);
    const signal = early.signal;
    const late = new ClientLeft(res);
    const isClosed = closed(res);
    res.end('ok');
    await isClosed;
    t.equal(early.aborted, false);
    t.equal(signal.aborted, false);
    t.equal(late.aborted, false);
    t.equal(late.signal.aborted, false);
  });
});
