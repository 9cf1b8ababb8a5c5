import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import { thrownKind } from './assert-invalid.ts';

const response = (candidate: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  candidates: [{ index: 0, ...candidate }],
  usageMetadata: {
    promptTokenCount: 20,
    candidatesTokenCount: 7,
    totalTokenCount: 40,
    thoughtsTokenCount: 13,
    cachedContentTokenCount: 8,
  },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'abc123',
  ...extra,
});

/** One model answer of `parts` ending with `finishReason` (other candidate fields in `more`), decoded. */
const decodeAnswer = (parts: unknown[], finishReason = 'STOP', more: Record<string, unknown> = {}) =>
  geminiUpstreamCodec.decodeResult(response({ content: { role: 'model', parts }, finishReason, ...more }));

t.test('a text answer: id, model, merged text, stop, usage with thoughts and cache', async (t) => {
  const r = decodeAnswer([{ text: 'Hello ' }, { text: 'world' }]);
  t.same(r, {
    id: 'abc123',
    model: 'gemini-2.5-flash',
    parts: [{ type: 'text', text: 'Hello world' }],
    finish: { reason: 'stop', raw: 'STOP' },
    usage: { inputTokens: 20, outputTokens: 20, reasoningTokens: 13, cacheReadTokens: 8 },
  });
});

t.test('functionCall parts become tool calls with synthesized ids; STOP becomes tool-calls', async (t) => {
  const r = decodeAnswer([
    { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'U0lH' },
    { functionCall: { name: 'weather', args: { city: 'Rome' } } },
    { functionCall: { name: 'clock', id: 'gemini-own-id' } },
  ]);
  t.same(r.parts, [
    { type: 'reasoning', text: '', signature: 'U0lH', origin: 'gemini' },
    toolCall('call_weather_0', 'weather', '{"city":"Paris"}'),
    toolCall('call_weather_1', 'weather', '{"city":"Rome"}'),
    toolCall('gemini-own-id', 'clock', '{}'),
  ]);
  t.same(r.finish, { reason: 'tool-calls', raw: 'STOP' });
});

t.test('thoughts, code execution and inline images', async (t) => {
  const r = decodeAnswer([
    { text: 'Plan: ', thought: true },
    { text: 'compute.', thought: true },
    { text: 'Running code.', thoughtSignature: 'VFNJRw==' },
    { executableCode: { language: 'PYTHON', code: 'print(6*7)' } },
    { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '42\n' } },
    { inlineData: { mimeType: 'image/png', data: 'iVBOR' } },
  ]);
  t.same(r.parts, [
    { type: 'reasoning', text: 'Plan: compute.', origin: 'gemini' },
    { type: 'reasoning', text: '', signature: 'VFNJRw==', origin: 'gemini' },
    { type: 'text', text: 'Running code.' },
    { type: 'code', language: 'python', code: 'print(6*7)' },
    { type: 'code-result', outcome: 'ok', output: '42\n' },
    { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
  ]);
});

t.test(
  'SAFETY, RECITATION and friends are content-filter, MALFORMED_FUNCTION_CALL is error, never plain stop',
  async (t) => {
    const fin = (finishReason: string, parts: unknown[] = []) => decodeAnswer(parts, finishReason).finish;
    for (const raw of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY'])
      t.same(fin(raw), { reason: 'content-filter', raw });
    t.same(fin('MALFORMED_FUNCTION_CALL'), { reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' });
    t.same(fin('MAX_TOKENS', [{ text: 'cut' }]), { reason: 'length', raw: 'MAX_TOKENS' });
    t.same(fin('OTHER'), { reason: 'other', raw: 'OTHER' });
    t.same(fin('LANGUAGE'), { reason: 'other', raw: 'LANGUAGE' });
    const safety = geminiUpstreamCodec.decodeResult(
      response({
        finishReason: 'SAFETY',
        safetyRatings: [
          { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
          { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
        ],
      }),
    );
    t.same(safety.parts, []);
    t.same(safety.safety, [
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
      { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
    ]);
  },
);

t.test('promptFeedback.blockReason without candidates is promptBlocked + content-filter', async (t) => {
  const r = geminiUpstreamCodec.decodeResult({
    promptFeedback: {
      blockReason: 'PROHIBITED_CONTENT',
      safetyRatings: [{ category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'HIGH' }],
    },
    usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'blk',
  });
  t.same(r.promptBlocked, { reason: 'PROHIBITED_CONTENT' });
  t.same(r.finish, { reason: 'content-filter', raw: 'PROHIBITED_CONTENT' });
  t.same(r.parts, []);
  t.same(r.safety, [{ category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'HIGH' }]);
  t.same(r.usage, { inputTokens: 9, outputTokens: 0 });
});

t.test('citations and grounding chunks are kept as url citations', async (t) => {
  const r = decodeAnswer([{ text: 'Quoted text.' }], 'STOP', {
    citationMetadata: { citationSources: [{ startIndex: 0, endIndex: 6, uri: 'https://src.test', license: 'mit' }] },
    groundingMetadata: { groundingChunks: [{ web: { uri: 'https://g.test', title: 'G' } }] },
  });
  t.same(r.parts, [
    {
      type: 'text',
      text: 'Quoted text.',
      citations: [
        { kind: 'url', url: 'https://src.test', start: 0, end: 6 },
        { kind: 'url', url: 'https://g.test', title: 'G' },
      ],
    },
  ]);
});

t.test('malformed bodies are upstream faults', async (t) => {
  t.equal(
    thrownKind(() => geminiUpstreamCodec.decodeResult('nope')),
    'upstream',
  );
  t.equal(
    thrownKind(() => geminiUpstreamCodec.decodeResult({ usageMetadata: {} })),
    'upstream',
  );
});

t.test('upstream errors: status picks the kind, keys are never blamed on the client', async (t) => {
  const e429 = geminiUpstreamCodec.decodeError(
    429,
    {
      error: {
        code: 429,
        message: 'Quota exceeded',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '21s' }],
      },
    },
    {},
  );
  t.match(e429, { kind: 'rate-limit', status: 429, retryAfter: 21, message: 'gemini upstream error: Quota exceeded' });
  t.match(geminiUpstreamCodec.decodeError(429, { error: { code: 429, message: 'q' } }, { 'Retry-After': '5' }), {
    retryAfter: 5,
  });
  t.match(geminiUpstreamCodec.decodeError(500, { error: { code: 500, message: 'boom', status: 'INTERNAL' } }, {}), {
    kind: 'internal',
    status: 500,
  });
  t.match(
    geminiUpstreamCodec.decodeError(503, { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }, {}),
    { kind: 'overloaded', status: 503 },
  );
  t.match(
    geminiUpstreamCodec.decodeError(
      404,
      { error: { code: 404, message: 'models/x is not found', status: 'NOT_FOUND' } },
      {},
    ),
    { kind: 'not-found' },
  );
  t.match(
    geminiUpstreamCodec.decodeError(400, { error: { code: 400, message: 'bad arg', status: 'INVALID_ARGUMENT' } }, {}),
    { kind: 'invalid-request', status: 400 },
  );
  for (const [status, body] of [
    [403, { error: { code: 403, message: 'Permission denied: key AIzaSECRET', status: 'PERMISSION_DENIED' } }],
    [401, { error: { code: 401, message: 'bad', status: 'UNAUTHENTICATED' } }],
    [
      400,
      {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ reason: 'API_KEY_INVALID' }],
        },
      },
    ],
  ] as const) {
    const e = geminiUpstreamCodec.decodeError(status, body, {});
    t.match(e, { kind: 'upstream', status: 502 }, `HTTP ${status} with a bad provider key is a gateway fault`);
    t.notMatch(e.message, /AIza/, 'the key is not echoed');
  }
  t.match(geminiUpstreamCodec.decodeError(502, '<html>bad gateway</html>', {}), {
    kind: 'internal',
    message: /bad gateway/,
  });
});
