// The official @google/genai SDK as the oracle for the client codec: a bare HTTP server decodes
// the SDK's requests with geminiClientCodec and answers scripted IR results / streams / errors
// through the same codec (SSE framed as src/infra/http/sse-writer.ts frames it).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, GoogleGenAI, type Content } from '@google/genai';
import t from 'tap';
import { toolCall, toolResult } from '../ir-messages.ts';
import { finishEvent, reasoningPart, textPart, toolInputPart } from '../stream-events.ts';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';

type Answer = { result: ChatResult } | { events: StreamEvent[] };
const seen: ChatRequest[] = [];
const answers: Answer[] = [];

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const m = /^\/v1(?:beta)?\/models\/([^:]+):(generateContent|streamGenerateContent)/.exec(req.url ?? '');
    try {
      const ir = geminiClientCodec.decodeRequest(JSON.parse(raw), {
        headers: req.headers,
        params: { model: m?.[1] ?? '' },
        query: {},
        streamByRoute: m?.[2] === 'streamGenerateContent',
      });
      seen.push(ir);
      const a = answers.shift();
      if (!a) throw new GatewayError('internal', 'nothing scripted');
      if ('result' in a) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(geminiClientCodec.encodeResult(a.result, ir)));
        return;
      }
      const enc = geminiClientCodec.createStreamEncoder(ir);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of a.events) for (const f of enc.push(e)) res.write(`data: ${f.data}\n\n`);
      res.end();
    } catch (e) {
      const err = e instanceof GatewayError ? e : new GatewayError('invalid-request', String(e));
      const out = geminiClientCodec.encodeError(err);
      res.writeHead(out.status, { 'content-type': 'application/json', ...(out.headers ?? {}) });
      res.end(JSON.stringify(out.body));
    }
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => server.close(() => r())));
const ai = new GoogleGenAI({
  apiKey: 'k',
  httpOptions: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
});
t.beforeEach(() => {
  seen.length = 0;
  answers.length = 0;
});

const usage = { inputTokens: 11, outputTokens: 7 };
const result = (
  parts: ChatResult['parts'],
  finish: ChatResult['finish'] = { reason: 'stop', raw: 'end_turn' },
  extra: Partial<ChatResult> = {},
): ChatResult => ({
  id: 'msg_01',
  model: 'claude-x',
  parts,
  finish,
  usage,
  ...extra,
});

t.test('generateContent: the SDK request decodes, the encoded answer parses', async (t) => {
  answers.push({ result: result([{ type: 'text', text: 'Bonjour' }]) });
  const r = await ai.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'Say hi in French',
    config: {
      temperature: 0.5,
      maxOutputTokens: 50,
      stopSequences: ['x'],
      systemInstruction: 'Be brief',
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
    },
  });
  t.equal(r.text, 'Bonjour');
  t.equal(r.modelVersion, 'gemini-2.5-flash');
  t.equal(r.responseId, 'msg_01');
  t.match(r.usageMetadata, { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 });
  t.match(seen[0], {
    model: 'gemini-2.5-flash',
    stream: false,
    system: [{ type: 'text', text: 'Be brief' }],
    maxTokens: 50,
    sampling: { temperature: 0.5, stop: ['x'] },
    output: {
      type: 'json-schema',
      name: 'response',
      schema: { type: 'object', properties: { a: { type: 'string' } } },
    },
  });
});

t.test('a bad field is a 400 ApiError naming it', async (t) => {
  const e = await ai.models
    .generateContent({ model: 'm', contents: 'x', config: { temperature: 3 } })
    .catch((x: unknown) => x);
  t.ok(e instanceof ApiError);
  t.equal((e as ApiError).status, 400);
  t.match((e as ApiError).message, /generationConfig\.temperature: must be between 0 and 2/);
  t.match((e as ApiError).message, /INVALID_ARGUMENT/);
});

t.test('a function call, a chat turn later, is matched back with reasoning intact', async (t) => {
  const chat = ai.chats.create({
    model: 'gemini-2.5-flash',
    config: { tools: [{ functionDeclarations: [{ name: 'weather', parametersJsonSchema: { type: 'object' } }] }] },
  });
  answers.push({
    result: result(
      [
        { type: 'reasoning', text: 'I should look it up.', signature: 'EpcBanthropic', origin: 'anthropic-messages' },
        toolCall('toolu_01A', 'weather', '{"city":"Oslo"}'),
      ],
      { reason: 'tool-calls', raw: 'tool_use' },
    ),
  });
  const first = await chat.sendMessage({ message: 'Weather in Oslo?' });
  t.same(first.functionCalls, [{ id: 'toolu_01A', name: 'weather', args: { city: 'Oslo' } }]);
  answers.push({ result: result([{ type: 'text', text: 'It is cold.' }]) });
  await chat.sendMessage({ message: [{ functionResponse: { name: 'weather', response: { temp: -3 } } }] });
  const ir = seen[1];
  t.same(ir.messages[1].parts, [
    { type: 'reasoning', text: 'I should look it up.', signature: 'EpcBanthropic', origin: 'anthropic-messages' },
    toolCall('toolu_01A', 'weather', '{"city":"Oslo"}'),
  ]);
  t.same(ir.messages[2].parts, [toolResult('toolu_01A', '{"temp":-3}', { name: 'weather' })]);
});

t.test('streaming: thoughts, text and a whole function call; last chunk with finish and usage', async (t) => {
  answers.push({
    events: [
      { type: 'start', id: 'r1', model: 'up', usage: { inputTokens: 11 } },
      ...reasoningPart(0, 'gemini', { deltas: ['Thinking'], signature: 'U0lH' }),
      ...textPart(1, 'Let me ', 'check.'),
      ...toolInputPart(2, 'call_weather_0', 'weather', '{"city":', '"Oslo"}'),
      finishEvent('tool-calls', 'STOP', { inputTokens: 11, outputTokens: 9, reasoningTokens: 4 }),
    ],
  });
  const chunks = [];
  for await (const c of await ai.models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'q',
    config: { thinkingConfig: { includeThoughts: true } },
  }))
    chunks.push(c);
  t.equal(seen[0].stream, true);
  t.same(seen[0].reasoning, { enabled: true, includeThoughts: true });
  t.same(
    chunks.map((c) => c.candidates?.[0].content?.parts),
    [
      [{ text: 'Thinking', thought: true }],
      [{ text: '', thought: true, thoughtSignature: 'U0lH' }],
      [{ text: 'Let me ' }],
      [{ text: 'check.' }],
      [{ functionCall: { name: 'weather', args: { city: 'Oslo' } } }],
      undefined,
    ],
  );
  const last = chunks[chunks.length - 1];
  t.equal(last.candidates?.[0].finishReason, 'STOP');
  t.match(last.usageMetadata, {
    promptTokenCount: 11,
    candidatesTokenCount: 5,
    thoughtsTokenCount: 4,
    totalTokenCount: 20,
  });
});

t.test('a stream error after the first chunk reaches the SDK as an ApiError', async (t) => {
  answers.push({
    events: [
      { type: 'start', id: 'r2', model: 'up' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, text: 'partial' },
      { type: 'error', error: new GatewayError('overloaded', 'upstream overloaded') },
    ],
  });
  const got: string[] = [];
  const err = await (async () => {
    for await (const c of await ai.models.generateContentStream({ model: 'm', contents: 'x' })) got.push(c.text ?? '');
  })().catch((e: unknown) => e);
  t.same(got, ['partial']);
  t.ok(err instanceof ApiError);
  t.equal((err as ApiError).status, 503);
});

t.test('safety outcomes stay visible to the SDK', async (t) => {
  answers.push({ result: result([], { reason: 'content-filter', raw: 'content_filter' }) });
  const filtered = await ai.models.generateContent({ model: 'm', contents: 'x' });
  t.equal(filtered.candidates?.[0].finishReason, 'SAFETY');
  t.equal(filtered.text, undefined);
  answers.push({
    result: result([], { reason: 'content-filter', raw: 'SAFETY' }, { promptBlocked: { reason: 'SAFETY' } }),
  });
  const blocked = await ai.models.generateContent({ model: 'm', contents: 'x' });
  t.equal(blocked.promptFeedback?.blockReason, 'SAFETY');
  t.equal(blocked.candidates, undefined);
});

t.test('the SDK history form (function role, snake-free camelCase, inline images) decodes', async (t) => {
  const history: Content[] = [
    {
      role: 'user',
      parts: [{ text: 'what is this' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
    },
    { role: 'model', parts: [{ functionCall: { name: 'describe', args: {} } }] },
    { role: 'function', parts: [{ functionResponse: { name: 'describe', response: { output: 'a cat' } } }] },
  ];
  answers.push({ result: result([{ type: 'text', text: 'A cat.' }]) });
  await ai.models.generateContent({ model: 'm', contents: history });
  t.same(
    seen[0].messages.map((m) => [m.role, m.parts.map((p) => p.type)]),
    [
      ['user', ['text', 'image']],
      ['assistant', ['tool-call']],
      ['user', ['tool-result']],
    ],
  );
  t.match(seen[0].messages[2].parts[0], { type: 'tool-result', callId: 'call_describe_0' });
});
