// SIGTERM drains Responses WebSockets: a response under way finishes, a new response.create is
// refused, then the socket closes with 1001 and the process exits 0. A client that vanishes
// mid-response aborts the upstream call (its request ends as client_closed, nothing stays in flight).
import t, { type Test } from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startGateway, testConfig } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { openRaw } from './raw-socket.ts';

async function slowGateway(t: Test) {
  const fault = await startFaultUpstream();
  t.teardown(() => fault.close());
  const gw = await startGateway(
    testConfig({
      providers: { slow: { type: 'openai', api: 'chat_completions', api_key: 'sk-up', base_url: fault.openaiUrl } },
      models: { slow: { routes: [{ provider: 'slow', model: 'gpt-up' }] } },
    }),
  );
  return { fault, gw };
}

t.test('SIGTERM: the response under way finishes, then the socket closes with 1001', async (t) => {
  const { fault, gw } = await slowGateway(t);
  const s = await openRaw(gw);
  fault.script({ kind: 'ok', text: 'finished despite the drain', pauseAfterChunks: 1 });
  s.ws.send(JSON.stringify({ type: 'response.create', model: 'slow', input: 'go', store: false }));
  await fault.waitForRequests(1);
  const exited = gw.stop('SIGTERM');
  await waitFor('the drain to start', async () => (gw.output().includes('shutting down') ? true : undefined));
  s.ws.send(JSON.stringify({ type: 'response.create', model: 'slow', input: 'too late', store: false }));
  const refused = await s.until('error');
  t.match(refused[refused.length - 1], { type: 'error', status: 503, error: { code: 'server_shutting_down' } });
  fault.resume();
  const events = await s.until('response.completed');
  const done = events[events.length - 1] as { response: { output: { content?: { text: string }[] }[] } };
  t.match(JSON.stringify(done.response.output), 'finished despite the drain');
  t.equal((await s.closed).code, 1001, 'closed as going away');
  t.equal(await exited, 0);
});

t.test('a client that vanishes mid-response aborts the upstream call', async (t) => {
  const { fault, gw } = await slowGateway(t);
  t.teardown(() => gw.stop());
  const s = await openRaw(gw);
  fault.script({ kind: 'ok', text: 'never delivered in full', pauseAfterChunks: 1 });
  s.ws.send(JSON.stringify({ type: 'response.create', model: 'slow', input: 'go', store: false }));
  await s.until('response.created');
  // No close frame: the TCP connection just goes.
  s.ws.terminate();
  const line = await waitFor("the response's log line", async () =>
    gw
      .output()
      .split('\n')
      .find((l) => l.includes('"route":"/v1/responses"')),
  );
  t.match(line, '"outcome":"client_closed"', 'the pipeline saw its client leave and stopped the upstream stream');
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /polygate_open_streams\{family="responses"\} 0/, 'no stream left open');
  t.match(metrics, /polygate_responses_websockets_open 0/);
});
