// Issue #30, finding 3: behind one slow response a `stream_id` lane queued every response.create
// it was sent (2,500 x 200 KB held +558 MB). What waits is now bounded per lane, per socket and in
// bytes per socket; past a bound the message gets too_many_queued_responses (429) at once, the
// socket stays open and what was queued runs once the lane moves.
import t from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig } from '../helpers/start-gateway.ts';
import { openRaw, type RawSocket } from './raw-socket.ts';

/** The next message, or undefined when none came in `ms` (the bound only keeps a broken run from hanging). */
const nextWithin = (s: RawSocket, ms: number): Promise<Record<string, unknown> | undefined> =>
  Promise.race([s.next(), new Promise<undefined>((r) => setTimeout(r, ms))]);

const create = (model: string, input: string, streamId?: string): string =>
  JSON.stringify({
    type: 'response.create',
    model,
    input,
    store: false,
    ...(streamId === undefined ? {} : { stream_id: streamId }),
  });

t.test('queued response.create messages are bounded per lane, per socket and in bytes', async (t) => {
  const fault = await startFaultUpstream();
  t.teardown(() => fault.close());
  const gw = await startInProcessGateway(
    testConfig({
      responses_websocket: { max_queued_per_lane: 3, max_queued_responses: 5, max_queued_bytes: 600 * 1024 },
      providers: { slow: { type: 'openai', api: 'chat_completions', api_key: 'sk-up', base_url: fault.openaiUrl } },
      models: { slow: { routes: [{ provider: 'slow', model: 'gpt-up' }] } },
    }),
  );
  t.teardown(() => gw.stop());

  // Two lanes, each held by a response its upstream pauses.
  fault.script(
    { kind: 'ok', text: 'held one', pauseAfterChunks: 1 },
    { kind: 'ok', text: 'held two', pauseAfterChunks: 1 },
  );
  const s = await openRaw(gw);
  s.ws.send(create('slow', 'first'));
  s.ws.send(create('slow', 'first on b', 'b'));
  await fault.waitForRequests(2);

  for (let i = 0; i < 3; i++) s.ws.send(create('echo', `queued ${i}`));
  s.ws.send(create('echo', 'one past the lane'));
  const seen: Record<string, unknown>[] = [];
  const refusal = async (): Promise<Record<string, unknown> | undefined> => {
    for (let m = await nextWithin(s, 5_000); m; m = await nextWithin(s, 5_000)) {
      if (m.type === 'error') return m;
      seen.push(m);
    }
    return undefined;
  };
  t.match(
    await refusal(),
    {
      type: 'error',
      status: 429,
      error: { code: 'too_many_queued_responses', param: 'stream_id', message: /max_queued_per_lane/ },
    },
    'the fourth waiting on one lane is refused',
  );

  s.ws.send(create('echo', 'queued on b', 'b'));
  s.ws.send(create('echo', 'queued on b too', 'b'));
  s.ws.send(create('echo', 'one past the socket', 'b'));
  t.match(
    await refusal(),
    { status: 429, stream_id: 'b', error: { code: 'too_many_queued_responses', message: /max_queued_responses/ } },
    'the sixth waiting on the socket is refused',
  );

  // Bytes: a second socket, its lane held, two 250 KB messages wait, a third would pass 600 KB.
  fault.script({ kind: 'ok', text: 'held three', pauseAfterChunks: 1 });
  const big = await openRaw(gw);
  big.ws.send(create('slow', 'first'));
  await fault.waitForRequests(3);
  for (let i = 0; i < 3; i++) big.ws.send(create('echo', `${i} ${'z'.repeat(250 * 1024)}`));
  let bytesRefusal: Record<string, unknown> | undefined;
  const bigSeen: Record<string, unknown>[] = [];
  while (!bytesRefusal) {
    const m = await nextWithin(big, 5_000);
    if (!m) break;
    if (m.type === 'error') bytesRefusal = m;
    else bigSeen.push(m);
  }
  t.match(
    bytesRefusal,
    { status: 429, error: { code: 'too_many_queued_responses', message: /max_queued_bytes/ } },
    'a message past the queued bytes is refused',
  );

  // The lanes move: everything that was queued (not refused) runs, in order, and the sockets stay open.
  fault.resume();
  const completed = async (sock: RawSocket, n: number, already: Record<string, unknown>[]): Promise<number> => {
    let done = already.filter((m) => m.type === 'response.completed').length;
    while (done < n) {
      const m = await nextWithin(sock, 10_000);
      if (!m) break;
      if (m.type === 'response.completed') done++;
    }
    return done;
  };
  t.equal(await completed(s, 2 + 3 + 2, seen), 7, 'the held responses and the five queued ones complete');
  t.equal(await completed(big, 1 + 2, bigSeen), 3, 'on the second socket, the held one and the two that fit');
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  s.ws.close();
  big.ws.close();
  await Promise.all([s.closed, big.closed]);
});
