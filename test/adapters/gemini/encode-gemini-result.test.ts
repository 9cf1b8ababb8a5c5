import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import type { ChatRequest, Part } from '../../../src/ir/chat-request.ts';
import type { ChatFinish, ChatResult } from '../../../src/ir/chat-result.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { thrownKind } from './assert-invalid.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => chatRequest({ model: 'my-gemini', ...extra });
const result = (
  parts: Part[],
  finish: ChatFinish = { reason: 'stop', raw: 'end_turn' },
  extra: Partial<ChatResult> = {},
): ChatResult => ({
  id: 'resp-1',
  model: 'upstream-model',
  parts,
  finish,
  usage: { inputTokens: 10, outputTokens: 30, reasoningTokens: 12, cacheReadTokens: 4 },
  ...extra,
});
type Wire = {
  candidates?: Array<Record<string, unknown> & { content?: { parts: Array<Record<string, unknown>>; role: string } }>;
  [k: string]: unknown;
};
const encode = (r: ChatResult, req: ChatRequest = request()): Wire => geminiClientCodec.encodeResult(r, req) as Wire;

t.test('a text answer is a GenerateContentResponse with usage, modelVersion and responseId', async (t) => {
  t.same(encode(result([{ type: 'text', text: 'Hello' }])), {
    candidates: [{ content: { parts: [{ text: 'Hello' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: 10,
      candidatesTokenCount: 18,
      totalTokenCount: 40,
      cachedContentTokenCount: 4,
      thoughtsTokenCount: 12,
    },
    modelVersion: 'my-gemini',
    responseId: 'resp-1',
  });
});

t.test('tool calls become functionCall parts with parsed args and their id', async (t) => {
  const w = encode(
    result([{ type: 'text', text: 'Checking.' }, toolCall('toolu_1', 'weather', '{"city":"Paris"}')], {
      reason: 'tool-calls',
      raw: 'tool_use',
    }),
  );
  t.same(w.candidates?.[0].content?.parts, [
    { text: 'Checking.' },
    { functionCall: { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } } },
  ]);
  t.equal(w.candidates?.[0].finishReason, 'STOP');
  t.equal(
    thrownKind(() => encode(result([toolCall('x', 'f', '{broken')]))),
    'upstream',
    'unparseable args are an upstream fault, not a silent {}',
  );
});

t.test('finish reasons never hide a filter or an error behind STOP', async (t) => {
  const fin = (finish: ChatFinish) => encode(result([{ type: 'text', text: 'x' }], finish)).candidates?.[0];
  t.match(fin({ reason: 'length', raw: 'max_tokens' }), { finishReason: 'MAX_TOKENS' });
  t.match(fin({ reason: 'stop-sequence', raw: 'stop_sequence' }), { finishReason: 'STOP' });
  t.match(fin({ reason: 'content-filter', raw: 'RECITATION' }), { finishReason: 'RECITATION' });
  t.match(fin({ reason: 'content-filter', raw: 'PROHIBITED_CONTENT' }), { finishReason: 'PROHIBITED_CONTENT' });
  t.match(fin({ reason: 'content-filter', raw: 'content_filter' }), {
    finishReason: 'SAFETY',
    finishMessage: 'upstream finish reason: content_filter',
  });
  t.match(fin({ reason: 'refusal', raw: 'refusal' }), { finishReason: 'SAFETY' });
  t.match(fin({ reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' }), { finishReason: 'MALFORMED_FUNCTION_CALL' });
  t.match(fin({ reason: 'error', raw: 'model_error' }), { finishReason: 'OTHER' });
  t.match(fin({ reason: 'other', raw: 'LANGUAGE' }), { finishReason: 'LANGUAGE' });
  t.notOk('finishMessage' in (fin({ reason: 'stop', raw: 'end_turn' }) ?? {}), 'a plain stop needs no message');
});

t.test('a blocked prompt has promptFeedback.blockReason and no candidates', async (t) => {
  const w = encode(
    result(
      [],
      { reason: 'content-filter', raw: 'SAFETY' },
      {
        promptBlocked: { reason: 'SAFETY' },
        safety: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }],
      },
    ),
  );
  t.notOk('candidates' in w);
  t.same(w.promptFeedback, {
    blockReason: 'SAFETY',
    safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }],
  });
  t.same(
    (
      encode(result([], { reason: 'content-filter', raw: 'x' }, { promptBlocked: { reason: 'jailbreak' } }))
        .promptFeedback as { blockReason: string }
    ).blockReason,
    'OTHER',
  );
});

t.test('candidate safetyRatings and url citations are reported', async (t) => {
  const w = encode(
    result(
      [
        { type: 'text', text: 'abc' },
        {
          type: 'text',
          text: 'defgh',
          citations: [{ kind: 'url', url: 'https://x.test', title: 'X', start: 1, end: 4 }],
        },
      ],
      { reason: 'stop', raw: 'STOP' },
      { safety: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }] },
    ),
  );
  t.same(w.candidates?.[0].safetyRatings, [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }]);
  t.same(w.candidates?.[0].citationMetadata, {
    citationSources: [{ startIndex: 4, endIndex: 7, uri: 'https://x.test', title: 'X' }],
  });
});

t.test('thoughts are shown only when includeThoughts was asked; the signature always survives', async (t) => {
  const parts: Part[] = [
    { type: 'reasoning', text: 'Thinking hard.', signature: 'R0VNSU5JU0lH', origin: 'gemini' },
    { type: 'text', text: 'Answer' },
  ];
  const shown = encode(result(parts), request({ reasoning: { enabled: true, includeThoughts: true } }));
  t.same(shown.candidates?.[0].content?.parts, [
    { text: 'Thinking hard.', thought: true, thoughtSignature: 'R0VNSU5JU0lH' },
    { text: 'Answer' },
  ]);
  const hidden = encode(result(parts), request({ reasoning: { enabled: true } }));
  t.same(
    hidden.candidates?.[0].content?.parts,
    [{ text: 'Answer', thoughtSignature: 'R0VNSU5JU0lH' }],
    'the signature moves to the next part',
  );
  const sigOnly = encode(
    result([
      { type: 'text', text: 'A' },
      { type: 'reasoning', text: '', signature: 'U0lH', origin: 'gemini' },
    ]),
  );
  t.same(
    sigOnly.candidates?.[0].content?.parts,
    [{ text: 'A' }, { text: '', thoughtSignature: 'U0lH' }],
    'a trailing signature gets its own empty part',
  );
  const noSig = encode(
    result([
      { type: 'reasoning', text: 'plain thoughts', origin: 'gemini' },
      { type: 'text', text: 'B' },
    ]),
  );
  t.same(noSig.candidates?.[0].content?.parts, [{ text: 'B' }], 'unsigned thoughts are not shown unasked');
});

t.test('reasoning from another provider round-trips through thoughtSignature', async (t) => {
  const anthropic: Part = {
    type: 'reasoning',
    text: 'step by step',
    signature: 'EqQBanthropicSig',
    origin: 'anthropic-messages',
  };
  const call: Part = toolCall('toolu_9', 'f', '{}');
  for (const includeThoughts of [false, true]) {
    const req = request({ reasoning: { enabled: true, includeThoughts } });
    const wire = encode(result([anthropic, call], { reason: 'tool-calls', raw: 'tool_use' }), req);
    const parts = wire.candidates?.[0].content?.parts ?? [];
    // The client sends the model turn back as history; the IR must hold the same reasoning again.
    const back = geminiClientCodec.decodeRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'q' }] },
          { role: 'model', parts },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
        ],
      },
      { headers: {}, params: { model: 'm' }, query: {} },
    );
    t.same(back.messages[1].parts, [anthropic, call], `includeThoughts ${includeThoughts}`);
    t.match(back.messages[2].parts[0], { type: 'tool-result', callId: 'toolu_9' }, 'the call id came back too');
  }
});

t.test('text/x.enum answers are unquoted; code parts map to executableCode', async (t) => {
  const w = encode(
    result([{ type: 'text', text: '"positive"' }]),
    request({ extensions: { gemini: { responseMimeType: 'text/x.enum' } } }),
  );
  t.same(w.candidates?.[0].content?.parts, [{ text: 'positive' }]);
  const c = encode(
    result([
      { type: 'code', language: 'python', code: 'print(2)' },
      { type: 'code-result', outcome: 'failed', output: 'boom' },
    ]),
  );
  t.same(c.candidates?.[0].content?.parts, [
    { executableCode: { language: 'PYTHON', code: 'print(2)' } },
    { codeExecutionResult: { outcome: 'OUTCOME_FAILED', output: 'boom' } },
  ]);
  const img = encode(result([{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }]));
  t.same(img.candidates?.[0].content?.parts, [{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }]);
});

t.test('errors use the spec status names and keep retry-after', async (t) => {
  const e = geminiClientCodec.encodeError(
    new GatewayError('invalid-request', 'generationConfig.temperature: too hot', {
      param: 'generationConfig.temperature',
    }),
  );
  t.same(e, {
    status: 400,
    body: { error: { code: 400, message: 'generationConfig.temperature: too hot', status: 'INVALID_ARGUMENT' } },
    headers: undefined,
  });
  const rl = geminiClientCodec.encodeError(new GatewayError('rate-limit', 'slow down', { retryAfter: 7 }));
  t.equal(rl.status, 429);
  t.same(rl.headers, { 'retry-after': '7' });
  t.match(rl.body, {
    error: {
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
    },
  });
  const cases: Array<[GatewayError['kind'], number, string]> = [
    ['authentication', 401, 'UNAUTHENTICATED'],
    ['permission', 403, 'PERMISSION_DENIED'],
    ['not-found', 404, 'NOT_FOUND'],
    ['payload-too-large', 413, 'PAYLOAD_TOO_LARGE'],
    ['internal', 500, 'INTERNAL'],
    ['upstream', 500, 'INTERNAL'],
    ['overloaded', 503, 'UNAVAILABLE'],
    ['timeout', 504, 'DEADLINE_EXCEEDED'],
  ];
  for (const [kind, status, name] of cases) {
    const enc = geminiClientCodec.encodeError(new GatewayError(kind, 'm'));
    t.equal(enc.status, status, kind);
    t.match(enc.body, { error: { code: status, status: name } });
  }
});
