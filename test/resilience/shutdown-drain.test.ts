// Graceful shutdown: on SIGTERM polygate stops accepting connections, lets a stream in flight run
// to its end, then exits 0; past shutdown_deadline_ms what is left is cut and it exits all the same.
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startGateway, testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { messagesStreamText, sseEvents, waitUntil } from './resilience-helpers.ts';

const fault = await startFaultUpstream();
t.teardown(() => fault.close());
const config = (deadline: number): Record<string, unknown> =>
  testConfig({
    providers: { flaky: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' } },
    models: { streamer: { routes: [{ provider: 'flaky', model: 'up-stream' }] } },
    shutdown_deadline_ms: deadline,
  });

/** A Messages stream over its own connection; resolves with the body once the response ends. */
function openStream(gw: Gateway): { status: Promise<number>; body: Promise<string> } {
  let setStatus!: (n: number) => void;
  const status = new Promise<number>((r) => (setStatus = r));
  const body = new Promise<string>((resolve) => {
    const req = request(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      setStatus(res.statusCode ?? 0);
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('close', () => resolve(text));
    });
    req.on('error', () => resolve(''));
    req.end(
      JSON.stringify({ model: 'streamer', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    );
  });
  return { status, body };
}

const exited = (gw: Gateway): Promise<number | null> =>
  new Promise((resolve) =>
    gw.process.exitCode !== null ? resolve(gw.process.exitCode) : gw.process.once('exit', resolve),
  );

/** A gateway with `deadlineMs` to drain, a stream open on it that the upstream holds after two chunks, then SIGTERM. */
async function sigtermDuringStream(t: Test, deadlineMs: number, text: string) {
  const gw = await startGateway(config(deadlineMs));
  fault.reset();
  fault.script({ kind: 'ok', text, pauseAfterChunks: 2 });
  const s = openStream(gw);
  t.equal(await s.status, 200);
  await fault.waitForRequests(1);
  const exit = exited(gw);
  gw.process.kill('SIGTERM');
  return { gw, s, exit };
}

t.test('SIGTERM drains an open stream to its end, refuses new connections, exits 0', async (t) => {
  const { gw, s, exit } = await sigtermDuringStream(t, 30_000, 'one two three four five');
  await waitUntil('the gateway to stop accepting connections', async () =>
    fetch(`${gw.url}/healthz`).then(
      () => undefined,
      () => true,
    ),
  );
  t.equal(gw.process.exitCode, null, 'still running while the stream is open');
  fault.resume();
  const events = sseEvents(await s.body);
  t.equal(messagesStreamText(events), 'one two three four five', 'the stream ran to its end');
  t.equal(events[events.length - 1].event, 'message_stop');
  t.equal(await exit, 0, 'exit 0 once drained');
  await gw.matchLog(t, /shutting down: draining/);
  await gw.matchLog(t, /polygate stopped/);
});

t.test('past shutdown_deadline_ms the rest is cut and polygate exits 0', async (t) => {
  const { gw, s, exit } = await sigtermDuringStream(t, 200, 'never finished here');
  t.equal(await exit, 0);
  await gw.matchLog(t, /shutdown deadline reached/);
  await s.body;
  fault.resume();
});
