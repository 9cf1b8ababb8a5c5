// Issue #30, finding 4: a socket's memory went far past max_socket_bytes (about 230 MB against 64
// MiB after 30 x 1 MB store: false turns) and nothing bounded all sockets together (8 sockets took
// the process from 253 MB to 2 GB). What sockets hold is now counted (remembered responses,
// prepared turns, queued and running messages: polygate_responses_websocket_held_bytes), each
// socket's remembered state stays under max_socket_bytes, and past max_total_bytes a new turn is
// refused with websocket_memory_limit_reached (503). The gateway's own accounting is measured,
// not the RSS.
import t from 'tap';
import { OTHER_KEY, startGateway, testConfig, type Gateway } from '../helpers/start-gateway.ts';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { openRaw, type RawSocket } from './raw-socket.ts';

const MB = 1024 * 1024;

const heldBytes = async (gw: Gateway): Promise<number> => {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('polygate_responses_websocket_held_bytes '));
  return line === undefined ? NaN : Number(line.split(' ').pop());
};

/** One turn of about 1 MB (`store: false`, as Codex sends); resolves with its last event. */
async function megabyteTurn(
  s: RawSocket,
  i: number,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  s.ws.send(
    JSON.stringify({ type: 'response.create', model: 'echo', store: false, input: `${i} ${'y'.repeat(MB)}`, ...extra }),
  );
  const events = await s.until('response.completed', 'error');
  return events[events.length - 1]!;
}

t.test("a socket's remembered turns and prepared turns are counted against max_socket_bytes", async (t) => {
  const gw = await startGateway(testConfig({ responses_websocket: { max_socket_bytes: 8 * MB } }));
  t.teardown(() => gw.stop());
  const s = await openRaw(gw);
  // Prepared turns (generate: false) are held too: three of 1 MB.
  for (let i = 0; i < 3; i++) t.match(await megabyteTurn(s, i, { generate: false }), { type: 'response.completed' });
  t.ok((await heldBytes(gw)) >= 3 * MB, 'the prepared turns are counted');
  const ends: Record<string, unknown>[] = [];
  for (let i = 0; i < 12; i++) ends.push(await megabyteTurn(s, i));
  t.ok(
    ends.every((e) => e.type === 'response.completed'),
    'every turn is answered (past the bound it is only not remembered)',
  );
  const held = await heldBytes(gw);
  t.ok(held > 3 * MB, `the socket holds what it remembered (${held} bytes)`);
  t.ok(held <= 8 * MB, `and no more than max_socket_bytes (${held} bytes)`);
  s.ws.close();
  await s.closed;
  await waitFor('the socket to be let go', async () => ((await heldBytes(gw)) === 0 ? true : undefined), 5_000).catch(
    () => {},
  );
  t.equal(await heldBytes(gw), 0, 'a closed socket holds nothing');
});

t.test('all sockets together stay under max_total_bytes: a turn past it is refused', async (t) => {
  // A lane held by a paused upstream, so messages queue behind it as behind any slow response.
  const fault = await startFaultUpstream();
  t.teardown(() => fault.close());
  const gw = await startGateway(
    testConfig({
      responses_websocket: { max_socket_bytes: 64 * MB, max_total_bytes: 16 * MB },
      providers: { slow: { type: 'openai', api: 'chat_completions', api_key: 'sk-up', base_url: fault.openaiUrl } },
      models: { slow: { routes: [{ provider: 'slow', model: 'gpt-up' }] } },
    }),
  );
  t.teardown(() => gw.stop());
  const a = await openRaw(gw);
  // Remembered turns take at most three quarters of the bound, all sockets together.
  for (let i = 0; i < 5; i++) t.match(await megabyteTurn(a, i), { type: 'response.completed' });
  const kept = await heldBytes(gw);
  t.ok(kept > 0 && kept <= 12 * MB, `remembered turns stay under 3/4 of max_total_bytes (${kept} bytes)`);

  fault.script({ kind: 'ok', text: 'held', pauseAfterChunks: 1 });
  a.ws.send(JSON.stringify({ type: 'response.create', model: 'slow', input: 'hold the lane', store: false }));
  await fault.waitForRequests(1);
  // Every message the socket gets from here on (a pending next() would take one for good).
  const errors: Record<string, unknown>[] = [];
  a.ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as Record<string, unknown>;
    if (m.type === 'error') errors.push(m);
  });
  let queued = 0;
  for (let i = 0; i < 31 && errors.length === 0; i++) {
    a.ws.send(
      JSON.stringify({ type: 'response.create', model: 'echo', store: false, input: `${i} ${'q'.repeat(MB)}` }),
    );
    // A queued message gets nothing until its turn; a refused one gets its error at once.
    await waitFor('an answer', async () => (errors.length > 0 ? true : undefined), 300).catch(() => queued++);
  }
  const refused = errors[0];
  t.ok(queued >= 1 && queued < 16, `1 MB messages queue until the bound (${queued})`);
  t.match(
    refused,
    {
      type: 'error',
      status: 503,
      error: { type: 'server_error', code: 'websocket_memory_limit_reached', message: /max_total_bytes/ },
    },
    'the message past max_total_bytes is refused',
  );
  t.ok((await heldBytes(gw)) <= 16 * MB, 'what the sockets hold stays under the bound');

  // Another tenant's socket is refused as well while the first holds the memory...
  const b = await openRaw(gw, OTHER_KEY);
  t.match(await megabyteTurn(b, 0), { type: 'error', error: { code: 'websocket_memory_limit_reached' } });
  // ...and served once the first socket's queue has run and the socket has gone.
  fault.resume();
  a.ws.close();
  await a.closed;
  await waitFor('the memory to be let go', async () => ((await heldBytes(gw)) < MB ? true : undefined), 10_000).catch(
    () => {},
  );
  t.match(await megabyteTurn(b, 1), { type: 'response.completed' }, 'served once memory is free again');
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  b.ws.close();
  await b.closed;
});
