// Responses over WebSocket with the official SDK, on every upstream type: a store:false chain by
// previous_response_id (from the socket's memory: nothing is stored) with a function tool round trip.
import t from 'tap';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { closeWs, connectWs, finalResponse, weatherTool, wsTurn } from './ws-client.ts';

t.test('a store:false tool chain over one socket, on each upstream type', async (t) => {
  const { gw, up } = await gatewayWithEmulators(t, {
    upstreams: { oai: 'chat', resp: 'responses', anth: 'anthropic', gem: 'gemini' },
    models: modelRoutes({
      'm-chat': 'oai/gpt-up',
      'm-responses': 'resp/gpt-up',
      'm-anthropic': 'anth/claude-up',
      'm-gemini': 'gem/gemini-up',
    }),
  });
  const cases = [
    { model: 'm-chat', emu: up.oai },
    { model: 'm-responses', emu: up.resp },
    { model: 'm-anthropic', emu: up.anth },
    { model: 'm-gemini', emu: up.gem },
    { model: 'echo', emu: undefined },
  ];
  const ws = connectWs(gw);
  for (const c of cases) {
    await t.test(c.model, async (t) => {
      c.emu?.script(
        { kind: 'tool', name: 'get_weather', args: '{"city":"Paris"}' },
        { kind: 'text', text: 'It is sunny in Paris.' },
      );
      // echo calls a tool only when told to.
      const toolChoice = c.emu ? 'auto' : { type: 'function' as const, name: 'get_weather' };
      const first = await wsTurn(ws, {
        model: c.model,
        store: false,
        input: 'Weather in Paris?',
        tools: [weatherTool],
        tool_choice: toolChoice,
      });
      const r1 = finalResponse(first);
      t.equal(first[0]?.type, 'response.created', 'the HTTP stream events, starting with response.created');
      const call = r1.output.find((o) => o.type === 'function_call');
      if (!call || call.type !== 'function_call') return t.fail(`no function call: ${JSON.stringify(r1.output)}`);
      t.equal(call.name, 'get_weather');
      t.same(Object.keys(JSON.parse(call.arguments) as object), ['city']);

      const second = await wsTurn(ws, {
        model: c.model,
        store: false,
        previous_response_id: r1.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' }],
        tools: [weatherTool],
      });
      const r2 = finalResponse(second);
      t.equal(r2.status, 'completed');
      // A relayed turn (openai-responses upstream) is the upstream's own response object, asked
      // the whole conversation without previous_response_id (docs/responses-websocket.md).
      if (c.model === 'm-responses')
        t.equal(r2.previous_response_id, null, "relayed: the upstream's answer as it came");
      else t.equal(r2.previous_response_id, r1.id, 'the answer names the response it continued');
      const text = r2.output
        .flatMap((o) => (o.type === 'message' ? o.content : []))
        .map((p) => (p.type === 'output_text' ? p.text : ''))
        .join('');
      if (c.emu) {
        t.equal(text, 'It is sunny in Paris.');
        // The upstream saw the whole conversation: the socket's memory resolved previous_response_id.
        const sent = JSON.stringify(c.emu.requests[c.emu.requests.length - 1]?.body);
        t.match(sent, 'Weather in Paris?', "the first turn's input reached the upstream on the second turn");
        t.match(sent, 'sunny, 21 C', 'and the tool output');
      } else {
        t.match(text, 'sunny, 21 C', 'echo answers with the tool output');
      }
    });
  }
  // store:false means nothing in the store: over HTTP the same id is unknown.
  const res = await fetch(`${gw.url}/v1/responses/${'resp_x'}`, {
    headers: { authorization: 'Bearer sk-test-key-0001' },
  });
  t.equal(res.status, 404);
  t.equal(await closeWs(ws), 1000);
});

t.test("socket memory is the socket's own; store:true responses reach the store as over HTTP", async (t) => {
  const { gw } = await gatewayWithEmulators(t, { upstreams: {}, models: {} });
  const a = connectWs(gw);
  const kept = finalResponse(await wsTurn(a, { model: 'echo', input: 'stored one' }));
  const local = finalResponse(await wsTurn(a, { model: 'echo', input: 'socket only', store: false }));
  const auth = { authorization: `Bearer ${TEST_KEY}` };
  t.equal(
    (await fetch(`${gw.url}/v1/responses/${kept.id}`, { headers: auth })).status,
    200,
    'store:true: retrievable over HTTP',
  );
  t.equal(
    (await fetch(`${gw.url}/v1/responses/${local.id}`, { headers: auth })).status,
    404,
    'store:false: never in the store',
  );

  // Another socket sees the store, not the first socket's memory.
  const b = connectWs(gw);
  const continued = finalResponse(
    await wsTurn(b, { model: 'echo', input: 'and more', previous_response_id: kept.id, store: false }),
  );
  t.equal(continued.status, 'completed', 'a stored response continues on any socket');
  const refused = await wsTurn(b, { model: 'echo', input: 'and more', previous_response_id: local.id });
  t.match(refused[refused.length - 1], {
    type: 'error',
    status: 400,
    error: { code: 'previous_response_not_found', param: 'previous_response_id' },
  });
  // ...and after its socket closed, not even that socket's responses continue (the memory went with it).
  await closeWs(a);
  const c = connectWs(gw);
  const gone = await wsTurn(c, { model: 'echo', input: 'x', previous_response_id: local.id });
  t.match(gone[gone.length - 1], { type: 'error', error: { code: 'previous_response_not_found' } });
  await closeWs(b);
  await closeWs(c);
});

t.test('generate:false prepares a turn without an upstream call; the next turn continues it', async (t) => {
  const { gw, up } = await gatewayWithEmulators(t, {
    upstreams: { oai: 'chat' },
    models: modelRoutes({ m: 'oai/gpt-up' }),
  });
  const ws = connectWs(gw);
  const first = finalResponse(await wsTurn(ws, { model: 'm', store: false, input: 'first question' }));
  const prepared = finalResponse(
    await wsTurn(ws, {
      model: 'm',
      store: false,
      generate: false,
      previous_response_id: first.id,
      input: 'prepared context',
    }),
  );
  t.equal(prepared.status, 'completed');
  t.same(prepared.output, [], 'no output');
  t.equal(up.oai.requests.length, 1, 'no upstream call for the prepared turn');
  up.oai.script({ kind: 'text', text: 'answered' });
  const next = finalResponse(
    await wsTurn(ws, { model: 'm', store: false, previous_response_id: prepared.id, input: 'the real question' }),
  );
  t.equal(next.status, 'completed');
  const sent = JSON.stringify(up.oai.requests[1]?.body);
  t.ok(
    sent.indexOf('first question') < sent.indexOf('prepared context') &&
      sent.indexOf('prepared context') < sent.indexOf('the real question'),
    'the upstream saw the chain, the prepared input and the new input, in order',
  );
  await closeWs(ws);
});

t.test('a socket remembers no more than responses_websocket.max_socket_bytes', async (t) => {
  const gw = await startInProcessGateway(testConfig({ responses_websocket: { max_socket_bytes: 200 } }));
  t.teardown(() => gw.stop());
  const ws = connectWs(gw);
  const big = finalResponse(await wsTurn(ws, { model: 'echo', store: false, input: 'words '.repeat(100) }));
  const refused = await wsTurn(ws, { model: 'echo', store: false, previous_response_id: big.id, input: 'more' });
  t.match(
    refused[refused.length - 1],
    { type: 'error', error: { code: 'previous_response_not_found' } },
    'past the cap the response was not kept',
  );
  await closeWs(ws);
});
