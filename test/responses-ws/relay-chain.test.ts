// Responses over WebSocket on a same-format route (an `openai` `api: responses` upstream): each
// store:false turn is RELAYED (docs/responses-websocket.md), the conversation rebuilt from the
// wire items the socket kept, so fields, items and reasoning polygate does not know reach the
// upstream verbatim; and a turn that falls over to a translated route still has the whole chain.
import t, { type Test } from 'tap';
import type { ResponsesClientEvent } from 'openai/resources/responses/responses';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { TEST_KEY, type RunningGateway } from '../helpers/start-gateway.ts';
import { openRaw } from './raw-socket.ts';
import { closeWs, connectWs, finalResponse, weatherTool, wsTurn } from './ws-client.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
type Create = Omit<ResponsesClientEvent & { type: 'response.create' }, 'type'>;

/** A top-level field and an input item type newer than polygate (and than the SDK's types). */
const futureField = { mode: 'future', depth: 2 };
const futureItem = (n: number): Json => ({
  type: 'future_context_item',
  payload: { note: `turn ${n}`, nested: [1, { k: 'v' }] },
});

/** The SDK's types know neither: the body goes on the wire as it is. */
const create = (body: Json): Create => body as unknown as Create;

/** polygate's translation warnings about Responses clients, as the metrics page counts them. */
async function responsesWarnings(gw: RunningGateway): Promise<string[]> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (l) => l.startsWith('polygate_translation_warnings_total{') && l.includes('inbound_format="openai-responses"'),
    );
}

/** A gateway whose model `m` is relayed to an emulated Responses upstream (provider `resp`). */
const relayingGateway = (t: Test) =>
  gatewayWithEmulators(t, { upstreams: { resp: 'responses' }, models: modelRoutes({ m: 'resp/gpt-up' }) });

const bodyOf = (r: { body: unknown } | undefined): Json => (r?.body ?? {}) as Json;

t.test(
  'a store:false tool chain on a Responses upstream is relayed turn by turn, the whole conversation as input',
  async (t) => {
    const { gw, up } = await relayingGateway(t);
    const ws = connectWs(gw);
    const before = await responsesWarnings(gw);
    const common = {
      model: 'm',
      store: false,
      tools: [weatherTool],
      include: ['reasoning.encrypted_content'],
      future_field: futureField,
    };

    up.resp.script({ kind: 'tool', name: 'get_weather', args: '{"city":"Paris"}' });
    const firstInput = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
      futureItem(1),
    ];
    const r1 = finalResponse(await wsTurn(ws, create({ ...common, input: firstInput })));
    const call = r1.output.find((o) => o.type === 'function_call');
    if (!call || call.type !== 'function_call') return t.fail(`no function call: ${JSON.stringify(r1.output)}`);
    t.same(bodyOf(up.resp.requests[0]).input, firstInput, 'turn 1: the input as the client sent it');

    // Turn 2: the tool's output; the upstream answers with reasoning (encrypted_content) and text.
    up.resp.script({
      kind: 'thinking',
      thinking: 'The tool said sunny.',
      signature: 'gAAAA-encrypted-by-upstream',
      text: 'It is sunny in Paris.',
    });
    const secondInput = [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' }, futureItem(2)];
    const r2 = finalResponse(await wsTurn(ws, create({ ...common, previous_response_id: r1.id, input: secondInput })));
    t.equal(r2.status, 'completed');
    const sent2 = bodyOf(up.resp.requests[1]);
    t.equal(sent2.previous_response_id, undefined, 'turn 2: no previous_response_id reaches the upstream');
    t.equal(sent2.store, false, 'store: false kept');
    t.same(sent2.future_field, futureField, 'turn 2: an unknown top-level field, verbatim');
    t.same(
      sent2.input,
      [...firstInput, ...r1.output, ...secondInput],
      "turn 2: turn 1's input and output items as they were, then the new items (the unknown one verbatim)",
    );
    const reasoning = r2.output.find((o) => o.type === 'reasoning');
    t.equal(
      reasoning?.type === 'reasoning' ? reasoning.encrypted_content : undefined,
      'gAAAA-encrypted-by-upstream',
      "the client got the upstream's reasoning as it came",
    );

    // Turn 3: a new question continues the chain; the reasoning goes back verbatim.
    up.resp.script({ kind: 'text', text: 'You are welcome.' });
    const thirdInput = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks!' }] },
      futureItem(3),
    ];
    const r3 = finalResponse(await wsTurn(ws, create({ ...common, previous_response_id: r2.id, input: thirdInput })));
    t.equal(r3.status, 'completed');
    const sent3 = bodyOf(up.resp.requests[2]);
    t.equal(sent3.previous_response_id, undefined, 'turn 3: no previous_response_id');
    t.same(sent3.future_field, futureField, 'turn 3: the unknown field, verbatim');
    t.same(
      sent3.input,
      [...firstInput, ...r1.output, ...secondInput, ...r2.output, ...thirdInput],
      'turn 3: the whole conversation, every item verbatim, in order',
    );
    t.match(
      JSON.stringify(sent3.input),
      '"encrypted_content":"gAAAA-encrypted-by-upstream"',
      'the reasoning item went back with its encrypted_content',
    );
    t.equal(up.resp.requests.length, 3, 'one upstream call per turn');

    t.same(await responsesWarnings(gw), before, 'no field or item was dropped with a warning');
    t.equal(await closeWs(ws), 1000);
  },
);

t.test(
  'a chain that falls over to an Anthropic route mid-way keeps the whole conversation, and relays again after',
  async (t) => {
    const { gw, up } = await gatewayWithEmulators(t, {
      upstreams: { resp: 'responses', anth: 'anthropic' },
      models: modelRoutes({ m: ['resp/gpt-up', 'anth/claude-up'] }),
    });
    const ws = connectWs(gw);
    const common = { model: 'm', store: false, tools: [weatherTool] };

    up.resp.script({ kind: 'tool', name: 'get_weather', args: '{"city":"Paris"}' });
    const r1 = finalResponse(await wsTurn(ws, create({ ...common, input: 'Weather in Paris?' })));
    const call = r1.output.find((o) => o.type === 'function_call');
    if (!call || call.type !== 'function_call') return t.fail(`no function call: ${JSON.stringify(r1.output)}`);
    t.equal(up.anth.requests.length, 0, 'turn 1 was served by the Responses upstream');

    // Turn 2: the Responses upstream fails; the Anthropic route is translated from the IR the socket kept.
    up.resp.script({ kind: 'error', status: 500 });
    up.anth.script({ kind: 'text', text: 'Sunny, 21 degrees.' });
    const r2 = finalResponse(
      await wsTurn(
        ws,
        create({
          ...common,
          previous_response_id: r1.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' }],
        }),
      ),
    );
    t.equal(r2.status, 'completed');
    const toAnthropic = bodyOf(up.anth.requests[0]);
    const messages = toAnthropic.messages as Json[];
    t.match(
      messages[0],
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      "Anthropic saw turn 1's question",
    );
    t.match(
      messages[1],
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: call.call_id, name: 'get_weather', input: { city: 'Paris' } }],
      },
      "the relayed answer's tool call, decoded from its wire items",
    );
    t.match(
      messages[2],
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.call_id }] },
      'and the tool result',
    );
    t.match(JSON.stringify(messages[2]), 'sunny, 21 C');

    // Turn 3: the Responses upstream is back: relayed again, turn 2's (translated) output among the items.
    up.resp.script({ kind: 'text', text: 'Glad to help.' });
    const r3 = finalResponse(await wsTurn(ws, create({ ...common, previous_response_id: r2.id, input: 'Thanks!' })));
    t.equal(r3.status, 'completed');
    const sent3 = bodyOf(up.resp.requests[up.resp.requests.length - 1]);
    t.equal(sent3.previous_response_id, undefined, 'relayed: no previous_response_id');
    t.same(
      sent3.input,
      [
        { type: 'message', role: 'user', content: 'Weather in Paris?' },
        ...r1.output,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' },
        ...r2.output,
        { type: 'message', role: 'user', content: 'Thanks!' },
      ],
      'the whole conversation: the relayed turn, the translated turn (its output as the client saw it), the new question',
    );
    t.equal(await closeWs(ws), 1000);
  },
);

t.test("a relayed socket turn carries the handshake's headers, without the socket's own beta", async (t) => {
  const { gw, up } = await relayingGateway(t);
  const raw = await openRaw(gw, TEST_KEY, {
    'openai-beta': 'responses_websockets=2026-02-06, future_beta=v1',
    'x-codex-turn-metadata': 'turn-7',
  });
  raw.ws.send(JSON.stringify({ type: 'response.create', model: 'm', store: false, input: 'hello' }));
  const events = await raw.until('response.completed', 'error');
  t.equal(events[events.length - 1]?.type, 'response.completed');
  const headers = up.resp.requests[0]?.headers ?? {};
  t.equal(
    headers['openai-beta'],
    'future_beta=v1',
    "the client's other betas go along; the socket's own does not (polygate speaks HTTP upstream)",
  );
  t.equal(headers['x-codex-turn-metadata'], 'turn-7', 'other handshake headers go along as on a POST');
  t.equal(
    headers.authorization,
    'Bearer sk-upstream-responses',
    "the upstream gets polygate's key, never the client's",
  );
  raw.ws.close(1000);
  await raw.closed;
});

t.test(
  "a chain through a response stored over HTTP (no wire items kept) is translated; a prepared turn's input is relayed",
  async (t) => {
    const { gw, up } = await relayingGateway(t);
    const stored = (await (
      await fetch(`${gw.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', input: 'stored question' }),
      })
    ).json()) as { id: string };
    const ws = connectWs(gw);
    /** The turn after `previousId`, unstored, carrying a field polygate does not know. */
    const nextTurn = async (previousId: string, input: string) =>
      finalResponse(
        await wsTurn(
          ws,
          create({ model: 'm', store: false, previous_response_id: previousId, input, future_field: futureField }),
        ),
      );
    const before = await responsesWarnings(gw);
    const r2 = await nextTurn(stored.id, 'next question');
    t.equal(r2.status, 'completed');
    const sent = bodyOf(up.resp.requests[1]);
    t.equal(sent.future_field, undefined, 'translated: the unknown field is not sent');
    t.match(JSON.stringify(sent.input), 'stored question', 'the stored conversation reached the upstream all the same');
    t.notSame(await responsesWarnings(gw), before, 'and the dropped field was counted as a warning');

    // generate:false: answered by the socket; the turn that continues it is relayed with its input.
    const prepared = finalResponse(
      await wsTurn(ws, create({ model: 'm', store: false, generate: false, input: 'prepared context' })),
    );
    const r3 = await nextTurn(prepared.id, 'the real question');
    t.equal(r3.status, 'completed');
    const relayed = bodyOf(up.resp.requests[2]);
    t.same(relayed.future_field, futureField, 'relayed');
    t.same(
      relayed.input,
      [
        { type: 'message', role: 'user', content: 'prepared context' },
        { type: 'message', role: 'user', content: 'the real question' },
      ],
      'the prepared input, then the new one',
    );
    t.equal(relayed.previous_response_id, undefined);
    t.equal(await closeWs(ws), 1000);
  },
);
