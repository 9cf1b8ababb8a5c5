import t from 'tap';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import type { ReasoningOrigin } from '../../../src/ir/wire-format.ts';
import type { Asserts } from './assert-invalid.ts';
import { finishEvent, reasoningPart, textPart, toolInputPart } from '../stream-events.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request = (extra: Partial<ChatRequest> = {}): ChatRequest =>
  chatRequest({ model: 'gemini-client-name', stream: true, ...extra });

/** Runs events through a fresh encoder; returns the parsed `data:` payloads (and checks framing). */
function run(t: Asserts, events: StreamEvent[], req: ChatRequest = request()): Array<Record<string, unknown>> {
  const enc = geminiClientCodec.createStreamEncoder(req);
  const frames = events.flatMap((e) => enc.push(e));
  for (const f of frames) t.equal(f.event, undefined, 'data-only frames, no event names');
  return frames.map((f) => JSON.parse(f.data) as Record<string, unknown>);
}
const partsOf = (chunk: Record<string, unknown>): unknown =>
  (chunk.candidates as Array<{ content?: { parts: unknown } }>)[0].content?.parts;

/** A chunk as the encoder writes it for this test's request. */
const wire = (candidates: unknown[], usageMetadata: Record<string, number>, responseId: string) => ({
  candidates,
  usageMetadata,
  modelVersion: 'gemini-client-name',
  responseId,
});
const finalUsage = { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 };

const finish = finishEvent('stop', 'end_turn', { inputTokens: 5, outputTokens: 3 });

t.test('text deltas become chunks of text parts; the last chunk has finishReason and usage', async (t) => {
  const chunks = run(t, [
    { type: 'start', id: 'r1', model: 'claude-x', usage: { inputTokens: 5 } },
    ...textPart(0, 'Hel', 'lo'),
    finish,
  ]);
  const startUsage = { promptTokenCount: 5, totalTokenCount: 5 };
  t.same(chunks, [
    wire([{ content: { parts: [{ text: 'Hel' }], role: 'model' }, index: 0 }], startUsage, 'r1'),
    wire([{ content: { parts: [{ text: 'lo' }], role: 'model' }, index: 0 }], startUsage, 'r1'),
    wire([{ finishReason: 'STOP', index: 0 }], finalUsage, 'r1'),
  ]);
});

t.test('tool input is sent whole, as one functionCall part, when it ends', async (t) => {
  const chunks = run(t, [
    { type: 'start', id: 'r2', model: 'm' },
    ...toolInputPart(0, 'call_1', 'weather', '{"ci', 'ty":"Oslo"}'),
    finishEvent('tool-calls', 'tool_calls', { inputTokens: 1, outputTokens: 1 }),
  ]);
  t.equal(chunks.length, 2);
  t.same(partsOf(chunks[0]), [{ functionCall: { id: 'call_1', name: 'weather', args: { city: 'Oslo' } } }]);
  t.match(chunks[1], { candidates: [{ finishReason: 'STOP' }] });
});

t.test('broken tool arguments end the stream with an in-stream error, not a silent {}', async (t) => {
  const chunks = run(t, [{ type: 'start', id: 'r', model: 'm' }, ...toolInputPart(0, 'c', 'f', '{"a":'), finish]);
  t.equal(chunks.length, 1, 'nothing after the error');
  t.match(chunks[0], { error: { code: 500, status: 'INTERNAL' } });
});

t.test('thoughts stream as thought parts only when asked; signatures ride on the next part', async (t) => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'r3', model: 'm' },
    ...reasoningPart(0, 'gemini', { deltas: ['Hmm'], signature: 'U0lH' }),
    ...textPart(1, 'Yes'),
    finish,
  ];
  const shown = run(t, events, request({ reasoning: { enabled: true, includeThoughts: true } }));
  t.same(shown.slice(0, 3).map(partsOf), [
    [{ text: 'Hmm', thought: true }],
    [{ text: '', thought: true, thoughtSignature: 'U0lH' }],
    [{ text: 'Yes' }],
  ]);
  const hidden = run(t, events, request({ reasoning: { enabled: true } }));
  t.same(hidden.slice(0, -1).map(partsOf), [[{ text: 'Yes', thoughtSignature: 'U0lH' }]]);
  const trailing = run(t, [
    { type: 'start', id: 'r', model: 'm' },
    ...reasoningPart(0, 'gemini', { signature: 'QQ==' }),
    finish,
  ]);
  t.same(trailing, [
    wire(
      [{ content: { parts: [{ text: '', thoughtSignature: 'QQ==' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      finalUsage,
      'r',
    ),
  ]);
});

t.test('an error event becomes a {error} frame and ends the stream', async (t) => {
  const chunks = run(t, [
    { type: 'start', id: 'r', model: 'm' },
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, text: 'par' },
    { type: 'error', error: new GatewayError('overloaded', 'upstream overloaded') },
    { type: 'text-delta', index: 0, text: 'tial' },
  ]);
  t.equal(chunks.length, 2);
  t.same(chunks[1], { error: { code: 503, message: 'upstream overloaded', status: 'UNAVAILABLE' } });
});

t.test('safety finish stays visible in the stream', async (t) => {
  const chunks = run(t, [
    { type: 'start', id: 'r', model: 'm' },
    finishEvent('content-filter', 'SAFETY', { inputTokens: 2, outputTokens: 0 }),
  ]);
  t.match(chunks[0], { candidates: [{ finishReason: 'SAFETY', index: 0 }] });
});

t.test('text/x.enum streams the bare value once the text part ends', async (t) => {
  const chunks = run(
    t,
    [{ type: 'start', id: 'r', model: 'm' }, ...textPart(0, '"neg', 'ative"'), finish],
    request({ extensions: { gemini: { responseMimeType: 'text/x.enum' } } }),
  );
  t.same(partsOf(chunks[0]), [{ text: 'negative' }]);
});

t.test('a blocked prompt is promptFeedback with no candidate; safety ratings ride on the last candidate', async (t) => {
  const ratings = [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'HIGH', blocked: true }];
  const blocked = run(t, [
    { type: 'start', id: 'r1', model: 'up', usage: { inputTokens: 4 } },
    {
      type: 'finish',
      finish: { reason: 'content-filter', raw: 'SAFETY' },
      usage: { inputTokens: 4, outputTokens: 0 },
      safety: ratings,
      promptBlocked: { reason: 'SAFETY' },
    },
  ]);
  t.same(blocked, [
    {
      promptFeedback: { blockReason: 'SAFETY', safetyRatings: ratings },
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 0, totalTokenCount: 4 },
      modelVersion: 'gemini-client-name',
      responseId: 'r1',
    },
  ]);
  const stopped = run(t, [
    { type: 'start', id: 'r2', model: 'up' },
    {
      type: 'finish',
      finish: { reason: 'content-filter', raw: 'SAFETY' },
      usage: { inputTokens: 4, outputTokens: 1 },
      safety: ratings,
    },
  ]);
  t.match(stopped.at(-1), { candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: ratings }] });
});

t.test('another provider’s signature travels in an envelope; Gemini’s own as it came', async (t) => {
  const withOrigin = (origin: ReasoningOrigin): StreamEvent[] => [
    { type: 'start', id: 'r', model: 'up' },
    ...reasoningPart(0, origin, { deltas: ['thought'], signature: 'sig-1' }),
    ...textPart(1, 'answer'),
    finish,
  ];
  const signatureOf = (chunks: Array<Record<string, unknown>>): string | undefined =>
    chunks
      .flatMap((c) => (partsOf(c) as Array<{ thoughtSignature?: string }> | undefined) ?? [])
      .find((p) => p.thoughtSignature !== undefined)?.thoughtSignature;
  const req = request({ reasoning: { enabled: true, includeThoughts: true } });
  t.equal(signatureOf(run(t, withOrigin('gemini'), req)), 'sig-1');
  const sealed = signatureOf(run(t, withOrigin('anthropic-messages'), req));
  t.not(sealed, 'sig-1', 'an Anthropic signature is not passed off as a Gemini one');
  const back = geminiClientCodec.decodeRequest(
    {
      contents: [
        { role: 'user', parts: [{ text: 'q' }] },
        { role: 'model', parts: [{ text: 'thought', thought: true, thoughtSignature: sealed }, { text: 'answer' }] },
      ],
    },
    { headers: {}, params: { model: 'm' }, query: {} },
  );
  t.match(
    back.messages[1].parts[0],
    { type: 'reasoning', text: 'thought', signature: 'sig-1', origin: 'anthropic-messages' },
    'and opens again on the way back',
  );
});
