// The handshake is authenticated like POST /v1/responses; every response.create then counts like
// an HTTP request (key limits, workspace model rules, request metrics), and the socket's own
// metrics count sockets and messages. stream_id lanes run at once up to the configured cap.
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { openRaw } from './raw-socket.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';

const metric = (text: string, name: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

t.test('handshake authentication, per-response limits and metrics', async (t) => {
  // A stream that holds until resumed keeps lanes busy for as long as the test needs.
  const fault = await startFaultUpstream();
  t.teardown(() => fault.close());
  const config = testConfig({
    responses_websocket: { max_concurrent_responses: 2 },
    providers: { slow: { type: 'openai', api: 'chat_completions', api_key: 'sk-up', base_url: fault.openaiUrl } },
    models: { slow: { routes: [{ provider: 'slow', model: 'gpt-up' }] } },
  });
  const keys = config.keys as Record<string, unknown>[];
  keys.push({ id: 'limited', secret: 'sk-limited-0003', workspace: 'ws3', models: ['*'], limits: { rpm: 2 } });
  const gw = await startInProcessGateway(config);
  t.teardown(() => gw.stop());

  await t.rejects(openRaw(gw, ''), { message: 'handshake answered 401' }, 'no key: the upgrade is refused with 401');
  await t.rejects(openRaw(gw, 'sk-wrong'), { message: 'handshake answered 401' }, 'an unknown key too');
  const wrongPath = await fetch(`${gw.url}/v1/chat/completions`, {
    headers: {
      connection: 'upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    },
  }).catch((e: Error) => e);
  t.ok(wrongPath instanceof Error || wrongPath.status === 404, 'no WebSocket on other paths');

  // The workspace's model rules apply per response: `other` may use echo* only.
  const other = await openRaw(gw, OTHER_KEY);
  other.ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-5', input: 'hi' }));
  t.match(await other.next(), { type: 'error', error: { param: 'model' } });
  other.ws.close();

  // rpm: 2 counts each response.create.
  const limited = await openRaw(gw, 'sk-limited-0003');
  for (let i = 0; i < 2; i++) {
    limited.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: `turn ${i}`, store: false }));
    const events = await limited.until('response.completed', 'error');
    t.equal(events[events.length - 1]?.type, 'response.completed');
  }
  limited.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: 'one too many', store: false }));
  t.match(
    await limited.next(),
    { type: 'error', status: 429, error: { type: 'rate_limit_error' } },
    'the third response in the minute is refused',
  );

  // Lanes: two stream_ids at once, each echoed on its events; a third lane past the cap is refused.
  const s = await openRaw(gw, TEST_KEY);
  fault.script(
    { kind: 'ok', text: 'lane a here', pauseAfterChunks: 1 },
    { kind: 'ok', text: 'lane b here', pauseAfterChunks: 1 },
  );
  for (const lane of ['a', 'b'])
    s.ws.send(
      JSON.stringify({ type: 'response.create', model: 'slow', input: `lane ${lane}`, store: false, stream_id: lane }),
    );
  await fault.waitForRequests(2);
  s.ws.send(JSON.stringify({ type: 'response.create', model: 'slow', input: 'lane c', store: false, stream_id: 'c' }));
  const seen: Record<string, unknown>[] = [];
  // The refusal comes while both lanes are held.
  for (let m = await s.next(); ; m = await s.next()) {
    seen.push(m);
    if (m.type === 'error') break;
  }
  fault.resume();
  while (seen.filter((m) => m.type === 'response.completed').length < 2) seen.push(await s.next());
  t.match(
    seen.find((m) => m.type === 'error'),
    { status: 429, stream_id: 'c', error: { code: 'too_many_concurrent_responses' } },
  );
  const lanes = new Set(seen.filter((m) => m.type === 'response.completed').map((m) => m.stream_id));
  t.same([...lanes].sort(), ['a', 'b'], "each lane's events carry its stream_id");
  t.ok(seen.filter((m) => m.type !== 'error').every((m) => m.stream_id === 'a' || m.stream_id === 'b'));

  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.equal(metric(metrics, 'polygate_responses_websockets_open'), 2, 'the limited socket and the lane socket are open');
  t.ok(metric(metrics, 'polygate_responses_websocket_messages_total{direction="in"}') >= 7);
  t.ok(metric(metrics, 'polygate_responses_websocket_messages_total{direction="out"}') > 10);
  t.equal(
    metric(metrics, 'polygate_responses_websocket_responses_total'),
    6,
    'every response.create that reached the pipeline',
  );
  t.equal(
    metric(metrics, 'polygate_requests_total{family="responses"'),
    6,
    'each is one request in the request metrics',
  );
  const logLines = (): number =>
    gw
      .output()
      .split('\n')
      .filter((l) => l.includes('"route":"/v1/responses"')).length;
  // Log lines are written asynchronously.
  await waitFor('six request log lines', async () => (logLines() >= 6 ? true : undefined));
  t.equal(logLines(), 6, 'and one request log line each');
  await waitFor("the closed socket's line", async () =>
    gw.output().includes('"msg":"responses websocket closed"') ? true : undefined,
  );
});
