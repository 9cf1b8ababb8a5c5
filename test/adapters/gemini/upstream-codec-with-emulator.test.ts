// The upstream codec against the Gemini emulator over real HTTP: encodeRequest's path and body
// are accepted, unary answers decode, and the SSE stream decodes through src/infra/upstream/read-sse.ts
// exactly as the provider reads it.
import t from 'tap';
import { briefTurn, codecWithEmulator, streamedEvents } from '../codec-against-emulator.ts';
import { toolCall } from '../ir-messages.ts';
import { reasoningPart, textPart } from '../stream-events.ts';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { startGeminiUpstream } from '../../emulators/gemini-upstream.ts';

const { em, send } = await codecWithEmulator(t, startGeminiUpstream, geminiUpstreamCodec, 'gemini-2.5-flash', {
  'x-goog-api-key': 'provider-key',
});
const request = briefTurn('client-model', 'echo me');

// A dropped socket surfaces as a thrown read; the provider turns it into an error event too.
const stream = async (req: ChatRequest): Promise<StreamEvent[]> =>
  streamedEvents(await send({ ...req, stream: true }), geminiUpstreamCodec, (e): StreamEvent => ({
    type: 'error',
    error: new GatewayError('upstream', String(e)),
  }));

t.test('unary: echo answer decodes; the emulator saw the encoded body on the v1beta path', async (t) => {
  const res = await send(request());
  const r = geminiUpstreamCodec.decodeResult(await res.json());
  t.same(r.parts, [{ type: 'text', text: 'echo me' }]);
  t.same(r.finish, { reason: 'stop', raw: 'STOP' });
  t.equal(r.model, 'gemini-2.5-flash');
  t.ok(r.usage.inputTokens > 0 && r.usage.outputTokens > 0);
  t.equal(em.requests[0].path, '/v1beta/models/gemini-2.5-flash:generateContent');
  t.same(em.requests[0].body, {
    contents: [{ role: 'user', parts: [{ text: 'echo me' }] }],
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
  });
});

t.test('stream: text deltas, then finish with usage', async (t) => {
  em.script({ kind: 'text', text: 'one two', chunks: ['one ', 'two'] });
  const events = await stream(request());
  t.equal(em.requests[0].path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  t.match(events, [
    { type: 'start', model: 'gemini-2.5-flash' },
    ...textPart(0, 'one ', 'two'),
    { type: 'finish', finish: { reason: 'stop', raw: 'STOP' } },
  ]);
  t.equal(events.length, 6);
});

t.test('function call and thinking, unary and streamed', async (t) => {
  em.script({ kind: 'tool', name: 'lookup', args: '{"q":"cats"}' });
  const r = geminiUpstreamCodec.decodeResult(
    await (
      await send(request({ tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }] }))
    ).json(),
  );
  t.same(r.parts, [toolCall('call_lookup_0', 'lookup', '{"q":"cats"}')]);
  t.same(r.finish, { reason: 'tool-calls', raw: 'STOP' });
  t.match(em.requests[0].body, {
    tools: [{ functionDeclarations: [{ name: 'lookup', parametersJsonSchema: { type: 'object' } }] }],
  });

  em.script({ kind: 'thinking', thinking: 'Pondering.', signature: 'c2lnMQ==', text: 'Done.' });
  const events = await stream(request({ reasoning: { enabled: true, budgetTokens: 512 } }));
  t.match(em.requests[1].body, {
    generationConfig: { thinkingConfig: { thinkingBudget: 512, includeThoughts: true } },
  });
  t.match(events.slice(1), [
    ...reasoningPart(0, 'gemini', { deltas: ['Pondering.'], signature: 'c2lnMQ==' }),
    ...textPart(1, 'Done.'),
    { type: 'finish', finish: { reason: 'stop' }, usage: { reasoningTokens: Number } },
  ]);
});

t.test('upstream errors decode by status with retry-after; a cut stream is an error event', async (t) => {
  em.script({ kind: 'error', status: 429, retryAfter: 9 });
  const res = await send(request());
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  const err = geminiUpstreamCodec.decodeError(res.status, await res.json(), headers);
  t.match(err, {
    kind: 'rate-limit',
    status: 429,
    retryAfter: 9,
    message: /^gemini upstream error: You exceeded your current quota/,
  });

  em.script({ kind: 'cut', text: 'first then gone' });
  const events = await stream(request());
  t.match(events[0], { type: 'start' });
  t.match(
    events.find((e) => e.type === 'text-delta'),
    { text: 'first ' },
  );
  t.equal(events[events.length - 1].type, 'error', 'the stream ends in an error, never a quiet finish');
  t.notOk(events.some((e) => e.type === 'finish'));
});
