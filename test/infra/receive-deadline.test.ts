// The body's receive deadline (src/infra/http/receive-deadline.ts) is one queue per duration with
// one timer, where each request had its own timer: a client trickling its body still gets its 408
// at the deadline, whatever completed around it; one whose body arrived in time never does; and a
// cancelled deadline does not keep its entry (no growth with requests whose bodies completed).
import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { cancelDeadline, deadlinesHeld, receiveDeadline } from '../../src/infra/http/receive-deadline.ts';

const ms = 400;
let timedOut = 0;
const answer = (id: string) => {
  timedOut++;
  return {
    status: 408,
    body: { error: { message: `body of ${id} too slow` } },
    headers: { 'x-kind': 'timeout' },
    extraHeaders: { 'x-request-id': id },
  };
};

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const d = receiveDeadline(req, res, ms, answer, String(req.headers['x-id']));
  res.on('close', () => d && cancelDeadline(d));
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => res.end(`got ${Buffer.concat(chunks).length}`));
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const port = (server.address() as { port: number }).port;
t.teardown(() => server.close());

/** A raw request declaring `length` bytes of body, of which `sent` are sent now; resolves with what came back once the socket closes (or `after` ms). */
function request(id: string, length: number, sent: number): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let got = '';
  socket.on('data', (b) => (got += b.toString('latin1')));
  socket.on('error', () => {});
  socket.write(
    `POST /x HTTP/1.1\r\nhost: x\r\nx-id: ${id}\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n${'a'.repeat(sent)}`,
  );
  return { socket, answer: new Promise((ok) => socket.on('close', () => ok(got))) };
}

t.test('a slow body among completed ones gets its 408 at the deadline; the others never do', async (t) => {
  timedOut = 0;
  const slow = request('slow', 100, 10);
  const fast = await Promise.all(Array.from({ length: 50 }, (_, i) => request(`fast${i}`, 20, 20).answer));
  for (const a of fast) t.match(a, /^HTTP\/1\.1 200 [\s\S]*got 20$/, 'a body in time is answered by its handler');
  const late = request('late', 100, 10);
  const got = await slow.answer;
  t.match(got, /^HTTP\/1\.1 408 /, 'the slow body gets a 408');
  t.match(got, /x-request-id: slow/i, 'with its own answer');
  t.match(got, /x-kind: timeout/i);
  t.match(got, /connection: close/i);
  t.match(got, /body of slow too slow/);
  t.match(await late.answer, /^HTTP\/1\.1 408 [\s\S]*body of late too slow/, 'a later one, at its own deadline');
  t.equal(timedOut, 2, 'the answer is built only for the bodies that missed the deadline');
  t.equal(deadlinesHeld(ms), 0, 'nothing is left in the queue');
});

t.test('completed bodies leave the queue when their responses close, not at their deadline', async (t) => {
  await Promise.all(Array.from({ length: 200 }, (_, i) => request(`c${i}`, 5, 5).answer));
  t.equal(deadlinesHeld(ms), 0, 'every entry cancelled and dropped');
  // Behind a slow body at the head (a large upload may take the whole bound), the requests that
  // completed meanwhile are not kept until it goes: the queue holds only bodies still awaited.
  const slow = request('head', 100, 1);
  await new Promise((ok) => setTimeout(ok, 50));
  await Promise.all(Array.from({ length: 20 }, (_, i) => request(`b${i}`, 5, 5).answer));
  const middle = request('middle', 100, 1);
  await Promise.all(Array.from({ length: 20 }, (_, i) => request(`a${i}`, 5, 5).answer));
  t.equal(deadlinesHeld(ms), 2, 'only the two slow bodies are held');
  t.match(await slow.answer, /^HTTP\/1\.1 408 /);
  t.match(await middle.answer, /^HTTP\/1\.1 408 /);
  t.equal(deadlinesHeld(ms), 0, 'the queue is empty once they have gone');
});

t.test('a request without a body announced has no deadline', async (t) => {
  const s = connect(port, '127.0.0.1');
  let got = '';
  s.on('data', (b) => (got += b.toString('latin1')));
  s.write('GET /x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  await new Promise((ok) => s.on('close', ok));
  t.match(got, /^HTTP\/1\.1 200 [\s\S]*got 0$/);
  t.equal(deadlinesHeld(ms), 0);
});
