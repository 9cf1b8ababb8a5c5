// The upstream codec end to end against the Responses emulator: encodeRequest's body is what the
// emulator receives, and decodeResult / the stream decoder (through polygate's own SSE reader)
// rebuild what the emulator was scripted to answer.
import t from 'tap';
import { briefTurn, codecWithEmulator, streamedEvents } from '../codec-against-emulator.ts';
import { userText } from '../ir-messages.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { responsesUpstreamCodec as codec } from '../../../adapters/openai-responses/index.ts';
import { startOpenAIResponsesUpstream } from '../../emulators/openai-responses-upstream.ts';

const { em: emu, send } = await codecWithEmulator(t, startOpenAIResponsesUpstream, codec, 'gpt-up', {
  authorization: 'Bearer k',
});
const request = briefTurn('client', 'ping');

/** The IR events of a streamed call; a socket failure (which the pipeline turns into an error event) ends the list with 'thrown'. */
const streamOf = async (req: ChatRequest): Promise<Array<StreamEvent | { type: 'thrown' }>> =>
  streamedEvents(await send({ ...req, stream: true }), codec, () => ({ type: 'thrown' as const }));

t.test('non-streaming echo: the request arrives as encoded, the result decodes', async (t) => {
  const res = await send(request());
  const result = codec.decodeResult(await res.json());
  t.same(result.parts, [{ type: 'text', text: 'ping' }]);
  t.same(result.finish, { reason: 'stop', raw: 'completed' });
  t.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0);
  t.match(result.id, /^resp_/);
  t.same(emu.requests[0].body, {
    model: 'gpt-up',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'ping' }] }],
    instructions: 'Be brief.',
    store: false,
    stream: false,
  });
});

t.test('streamed tool call: arguments in the scripted pieces, exact when joined', async (t) => {
  const args = '{"city":"Zürich","days":[1,2]}';
  emu.script({
    kind: 'tool',
    name: 'forecast',
    args,
    id: 'call_z',
    argChunks: ['{"ci', 'ty":"Zü', 'rich","days":[1,', '2]}'],
    text: 'Checking.',
  });
  const evs = await streamOf(
    request({ tools: [{ type: 'function', name: 'forecast', parameters: { type: 'object' } }] }),
  );
  t.same(
    evs.map((e) => e.type),
    [
      'start',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-delta',
      'tool-input-delta',
      'tool-input-delta',
      'tool-input-end',
      'finish',
    ],
  );
  t.same(evs[4], { type: 'tool-input-start', index: 1, id: 'call_z', name: 'forecast' });
  t.equal(evs.flatMap((e) => (e.type === 'tool-input-delta' ? [e.json] : [])).join(''), args);
  const fin = evs[evs.length - 1];
  t.ok(fin.type === 'finish' && fin.finish.reason === 'tool-calls');
});

t.test('reasoning: summary streamed, encrypted content and item id kept for replay', async (t) => {
  emu.script({ kind: 'thinking', thinking: 'Because.', signature: 'ENC-1', text: 'Yes.' });
  const evs = await streamOf(request({ reasoning: { enabled: true, effort: 'low', includeThoughts: true } }));
  const sent = emu.requests[0].body as Record<string, unknown>;
  t.same(sent.reasoning, { effort: 'low', summary: 'auto' });
  t.same(sent.include, ['reasoning.encrypted_content']);
  const sig = evs.find((e) => e.type === 'reasoning-signature');
  t.ok(sig && sig.type === 'reasoning-signature' && /^rs_/.test(sig.signature), 'the item id travels as the signature');
  t.equal(evs.flatMap((e) => (e.type === 'reasoning-delta' ? [e.text] : [])).join(''), 'Because.');
  t.same(
    evs.find((e) => e.type === 'reasoning-end'),
    { type: 'reasoning-end', index: 0, encrypted: 'ENC-1' },
  );

  emu.script({ kind: 'thinking', thinking: 'Again.', signature: 'ENC-2', text: 'Ok.' });
  const result = codec.decodeResult(
    await (await send(request({ reasoning: { enabled: true, includeThoughts: true } }))).json(),
  );
  const rs = result.parts[0];
  t.ok(
    rs.type === 'reasoning' &&
      rs.encrypted === 'ENC-2' &&
      rs.origin === 'openai-responses' &&
      /^rs_/.test(rs.signature ?? ''),
  );
  // The next turn replays it: same id, same encrypted content.
  emu.script({ kind: 'text', text: 'fine' });
  await send(
    request({
      messages: [userText('q'), { role: 'assistant', parts: result.parts }, userText('more')],
    }),
  );
  const replay = (emu.requests[2].body as { input: Array<Record<string, unknown>> }).input[1];
  t.same(replay, {
    type: 'reasoning',
    id: rs.type === 'reasoning' ? rs.signature : '',
    summary: [{ type: 'summary_text', text: 'Again.' }],
    encrypted_content: 'ENC-2',
  });
});

t.test('errors: status and retry-after through decodeError', async (t) => {
  emu.script({ kind: 'error', status: 429, retryAfter: 3 });
  const res = await send(request());
  const err = codec.decodeError(res.status, await res.json(), Object.fromEntries(res.headers));
  t.equal(err.kind, 'rate-limit');
  t.equal(err.retryAfter, 3);
});

t.test('a cut stream ends in an IR error', async (t) => {
  emu.script({ kind: 'cut', text: 'half of it' });
  const types = (await streamOf(request())).map((e) => e.type);
  t.equal(types[0], 'start');
  t.ok(types.includes('text-delta'), 'the first delta arrived');
  t.ok(
    types[types.length - 1] === 'error' || types[types.length - 1] === 'thrown',
    'then an error, never a clean finish',
  );
  t.notOk(types.includes('finish'));
});
