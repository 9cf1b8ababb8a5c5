import t from 'tap';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { finishEvent, reasoningPart, textPart, toolInputPart } from '../stream-events.ts';

/** Feeds whole-response chunks as `data:` frames, then ends the stream. */
function decode(chunks: unknown[], end = true): StreamEvent[] {
  const d = geminiUpstreamCodec.createStreamDecoder();
  const out = chunks.flatMap((c) => d.push({ data: typeof c === 'string' ? c : JSON.stringify(c) }));
  return end ? [...out, ...d.end()] : out;
}
const chunk = (
  parts: unknown[],
  extra: Record<string, unknown> = {},
  usage: Record<string, unknown> = { promptTokenCount: 4, totalTokenCount: 4 },
) => ({
  candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }],
  usageMetadata: usage,
  modelVersion: 'gemini-2.5-flash',
  responseId: 'rid',
});
const finalUsage = { promptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 9, thoughtsTokenCount: 2 };

t.test('text chunks continue one text part; finish carries the last usage', async (t) => {
  const events = decode([
    chunk([{ text: 'Hel' }]),
    chunk([{ text: 'lo' }]),
    chunk([{ text: '!' }], { finishReason: 'STOP' }, finalUsage),
  ]);
  t.same(events, [
    { type: 'start', id: 'rid', model: 'gemini-2.5-flash', usage: { inputTokens: 4 } },
    ...textPart(0, 'Hel', 'lo', '!'),
    finishEvent('stop', 'STOP', { inputTokens: 4, outputTokens: 5, reasoningTokens: 2 }),
  ]);
});

t.test('thought parts stream as reasoning with their signature; a function call arrives whole', async (t) => {
  const events = decode([
    chunk([{ text: 'Let me ', thought: true }]),
    chunk([{ text: 'check.', thought: true, thoughtSignature: 'U0lHMQ==' }]),
    chunk(
      [
        { functionCall: { name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'U0lHMg==' },
        { functionCall: { name: 'weather', args: { city: 'Bergen' } } },
      ],
      { finishReason: 'STOP' },
      finalUsage,
    ),
  ]);
  t.same(events.slice(1), [
    ...reasoningPart(0, 'gemini', { deltas: ['Let me ', 'check.'], signature: 'U0lHMQ==' }),
    ...reasoningPart(1, 'gemini', { signature: 'U0lHMg==' }),
    ...toolInputPart(2, 'call_weather_0', 'weather', '{"city":"Oslo"}'),
    ...toolInputPart(3, 'call_weather_1', 'weather', '{"city":"Bergen"}'),
    finishEvent('tool-calls', 'STOP', { inputTokens: 4, outputTokens: 5, reasoningTokens: 2 }),
  ]);
});

t.test('a trailing empty text part with a signature becomes a signed reasoning part', async (t) => {
  const events = decode([
    chunk([{ text: 'Answer' }]),
    chunk([{ text: '', thoughtSignature: 'VA==' }], { finishReason: 'STOP' }),
  ]);
  t.same(events.slice(1, -1), [...textPart(0, 'Answer'), ...reasoningPart(1, 'gemini', { signature: 'VA==' })]);
});

t.test('safety stops and blocked prompts finish as content-filter, malformed calls as error', async (t) => {
  const ratings = [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }];
  const safety = decode([
    chunk([{ text: 'Some' }]),
    {
      candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: ratings }],
      usageMetadata: finalUsage,
      modelVersion: 'm',
      responseId: 'r',
    },
  ]);
  t.match(
    safety[safety.length - 1],
    { type: 'finish', finish: { reason: 'content-filter', raw: 'SAFETY' }, safety: ratings },
    'the ratings travel on the finish',
  );
  const recitation = decode([chunk([], { finishReason: 'RECITATION' })]);
  t.match(recitation[recitation.length - 1], {
    type: 'finish',
    finish: { reason: 'content-filter', raw: 'RECITATION' },
  });
  const blocked = decode([
    {
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
      modelVersion: 'm',
      responseId: 'r',
    },
  ]);
  t.same(
    blocked,
    [
      { type: 'start', id: 'r', model: 'm', usage: { inputTokens: 3 } },
      {
        type: 'finish',
        finish: { reason: 'content-filter', raw: 'SAFETY' },
        usage: { inputTokens: 3, outputTokens: 0 },
        promptBlocked: { reason: 'SAFETY' },
      },
    ],
    'a blocked prompt says so on the finish, not only as a content filter',
  );
  const malformed = decode([chunk([], { finishReason: 'MALFORMED_FUNCTION_CALL' })]);
  t.match(malformed[malformed.length - 1], {
    type: 'finish',
    finish: { reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' },
  });
});

t.test('an {error} chunk becomes an error event and nothing follows', async (t) => {
  const d = geminiUpstreamCodec.createStreamDecoder();
  // Copied: a decoder's batch is its own, reused by its next push (UpstreamStreamDecoder).
  const first = [...d.push({ data: JSON.stringify(chunk([{ text: 'par' }])) })];
  const err = d.push({
    data: JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }),
  });
  t.equal(first.length, 3);
  t.equal(err.length, 1);
  t.match(err[0], {
    type: 'error',
    error: { kind: 'overloaded', message: 'gemini upstream error: The model is overloaded.' },
  });
  t.same(d.push({ data: JSON.stringify(chunk([{ text: 'more' }])) }), []);
  t.same(d.end(), []);
});

t.test('a stream that ends without a finishReason is an error, so is a chunk that is not JSON', async (t) => {
  const cut = decode([chunk([{ text: 'partial' }])]);
  t.match(cut[cut.length - 1], { type: 'error', error: { kind: 'upstream', message: /ended early/ } });
  const bad = decode(['{not json'], false);
  t.match(bad, [{ type: 'error', error: { kind: 'upstream' } }]);
});

t.test('code execution parts are shown as text rather than dropped; media parts fail loudly', async (t) => {
  const events = decode([
    chunk(
      [
        { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      ],
      { finishReason: 'STOP' },
    ),
  ]);
  const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('');
  t.equal(text, '\n```python\nprint(1)\n```\n\n```\n1\n```\n');
  const media = decode([chunk([{ inlineData: { mimeType: 'image/png', data: 'iVBOR' } }], { finishReason: 'STOP' })]);
  t.match(media[media.length - 1], { type: 'error', error: { kind: 'upstream', message: /media part/ } });
});
