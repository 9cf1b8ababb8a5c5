// Bad input on a Responses WebSocket gets the protocol's `error` event and the socket stays
// usable; a frame past responses_websocket.max_message_bytes closes it with 1009; steering is
// refused as the protocol lets a server that cannot steer refuse it.
import t from 'tap';
import WebSocket from 'ws';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { openRaw } from './raw-socket.ts';

t.test('bad input', async (t) => {
  const gw = await startInProcessGateway(
    testConfig({ limits: { max_body_bytes: 64 * 1024 }, responses_websocket: { max_message_bytes: 256 * 1024 } }),
  );
  t.teardown(() => gw.stop());
  const s = await openRaw(gw);
  const ok = async (): Promise<void> => {
    s.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: 'still here', store: false }));
    const events = await s.until('response.completed', 'error');
    t.equal(events[events.length - 1]?.type, 'response.completed', 'the socket still serves responses');
  };

  s.ws.send('{"type": "response.create", ');
  t.match(await s.next(), {
    type: 'error',
    status: 400,
    error: { type: 'invalid_request_error', code: 'invalid_json' },
  });
  await ok();

  s.ws.send(JSON.stringify({ type: 'session.update', session: {} }));
  t.match(await s.next(), { type: 'error', status: 400, error: { code: 'unknown_event_type', param: 'type' } });
  s.ws.send('[1,2]');
  t.match(await s.next(), { type: 'error', error: { code: 'invalid_event', param: 'type' } });

  s.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: 'x', background: true }));
  t.match(await s.next(), { type: 'error', status: 400, error: { param: 'background' } });

  s.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: 'x', temperature: 'hot' }));
  t.match(
    await s.next(),
    { type: 'error', status: 400, error: { type: 'invalid_request_error', param: 'temperature' } },
    "the HTTP route's 400 names the field",
  );

  s.ws.send(JSON.stringify({ type: 'response.create', model: 'no-such-model', input: 'x' }));
  t.match(await s.next(), { type: 'error', status: 404, error: { param: 'model' } });

  s.ws.send(
    JSON.stringify({ type: 'response.create', model: 'echo', input: 'x', previous_response_id: 'resp_unknown' }),
  );
  t.match(await s.next(), {
    type: 'error',
    status: 400,
    error: { code: 'previous_response_not_found', param: 'previous_response_id' },
  });

  // Past limits.max_body_bytes but within the frame limit: the HTTP route's 413, socket kept.
  s.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: 'y'.repeat(100 * 1024) }));
  t.match(await s.next(), { type: 'error', status: 413 });

  s.ws.send(JSON.stringify({ type: 'response.steer', previous_response_id: 'resp_1', input: 'go left' }));
  t.match(await s.next(), {
    type: 'response.steer.failed',
    steer: { previous_response_id: 'resp_1', input: 'go left' },
    error: { type: 'invalid_request_error', code: 'steering_not_supported' },
  });
  s.ws.send(JSON.stringify({ type: 'response.steer' }));
  t.match(await s.next(), { type: 'response.steer.failed', error: { code: 'invalid_input' } });
  await ok();

  // Past the frame limit: ws closes with 1009 (message too big).
  s.ws.send('z'.repeat(300 * 1024));
  t.equal((await s.closed).code, 1009);
});

t.test('idle sockets close with 1000; a peer that stops answering pings is dropped', async (t) => {
  const idleGw = await startInProcessGateway(testConfig({ responses_websocket: { idle_timeout_ms: 1000 } }));
  t.teardown(() => idleGw.stop());
  const idle = await openRaw(idleGw);
  t.match(await idle.closed, { code: 1000, reason: 'idle timeout' });
  const gw = await startInProcessGateway(testConfig({ responses_websocket: { ping_interval_ms: 1000 } }));
  t.teardown(() => gw.stop());
  // autoPong off: a client that is gone without a close frame, as far as pings can tell.
  const ws = new WebSocket(`ws://127.0.0.1:${gw.port}/v1/responses`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
    autoPong: false,
  });
  const pings = { n: 0 };
  ws.on('ping', () => pings.n++);
  const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
  t.equal(code, 1006, 'dropped without a close frame');
  t.ok(pings.n >= 1, 'after a ping it did not answer');
});

t.test('a socket open for max_connection_ms gets websocket_connection_limit_reached and closes', async (t) => {
  const gw = await startInProcessGateway(testConfig({ responses_websocket: { max_connection_ms: 1500 } }));
  t.teardown(() => gw.stop());
  const s = await openRaw(gw);
  t.match(await s.next(), { type: 'error', error: { code: 'websocket_connection_limit_reached' } });
  t.equal((await s.closed).code, 1000);
});
