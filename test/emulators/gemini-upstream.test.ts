// Proves the Gemini emulator honest: the official @google/genai SDK, pointed straight at it,
// parses every kind of scripted reply, and the raw bytes have the real API's framing.
import { ApiError, GoogleGenAI } from '@google/genai';
import t from 'tap';
import { startGeminiUpstream } from './gemini-upstream.ts';

const em = await startGeminiUpstream();
t.teardown(() => em.close());
t.beforeEach(() => em.reset());
const ai = new GoogleGenAI({ apiKey: 'test-gemini-key', httpOptions: { baseUrl: em.url } });
const model = 'gemini-2.5-flash';

t.test('generateContent: unscripted echo of the last user text, request recorded', async (t) => {
  const r = await ai.models.generateContent({
    model,
    contents: 'Hello emulator',
    config: { temperature: 0.3, systemInstruction: 'be nice' },
  });
  t.equal(r.text, 'Hello emulator');
  t.equal(r.candidates?.[0].finishReason, 'STOP');
  t.equal(r.modelVersion, model);
  t.match(r.responseId, /^[\w-]{22}$/);
  t.match(r.usageMetadata, { promptTokenCount: Number, candidatesTokenCount: Number, totalTokenCount: Number });
  t.equal(em.requests.length, 1);
  const req = em.requests[0];
  t.equal(req.method, 'POST');
  t.equal(req.path, `/v1/models/${model}:generateContent`, '@google/genai v3 calls /v1 by default');
  t.equal(req.headers['x-goog-api-key'], 'test-gemini-key');
  t.same(req.body, {
    contents: [{ parts: [{ text: 'Hello emulator' }], role: 'user' }],
    systemInstruction: { parts: [{ text: 'be nice' }], role: 'user' },
    generationConfig: { temperature: 0.3 },
  });
});

t.test('the /v1beta path is served too', async (t) => {
  const beta = new GoogleGenAI({ apiKey: 'k', apiVersion: 'v1beta', httpOptions: { baseUrl: em.url } });
  em.script({ kind: 'text', text: 'beta answer' });
  const r = await beta.models.generateContent({ model, contents: 'x' });
  t.equal(r.text, 'beta answer');
  t.equal(em.requests[0].path, `/v1beta/models/${model}:generateContent`);
});

t.test('generateContentStream: scripted chunks arrive in order, the last with finishReason and usage', async (t) => {
  em.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
  const stream = await ai.models.generateContentStream({ model, contents: 'count' });
  const texts: string[] = [];
  const finishes: unknown[] = [];
  let last: Awaited<ReturnType<typeof ai.models.generateContent>> | undefined;
  for await (const c of stream) {
    texts.push(c.text ?? '');
    finishes.push(c.candidates?.[0].finishReason);
    last = c;
  }
  t.same(texts, ['one ', 'two ', 'three']);
  t.same(finishes, [undefined, undefined, 'STOP']);
  t.match(last?.usageMetadata, { promptTokenCount: Number, candidatesTokenCount: Number });
  t.equal(em.requests[0].path, `/v1/models/${model}:streamGenerateContent?alt=sse`);
});

t.test('a scripted function call arrives whole, with args parsed from the script', async (t) => {
  em.script({ kind: 'tool', name: 'get_weather', args: '{"city":"Paris","days":2}' });
  const r = await ai.models.generateContent({
    model,
    contents: 'weather?',
    config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object' } }] }] },
  });
  t.same(r.functionCalls, [{ name: 'get_weather', args: { city: 'Paris', days: 2 } }]);
  t.match(em.requests[0].body, { tools: [{ functionDeclarations: [{ name: 'get_weather' }] }] });

  em.script({ kind: 'tool', name: 'lookup', args: '{"q":"x"}', text: 'Let me look.' });
  const parts: unknown[] = [];
  for await (const c of await ai.models.generateContentStream({ model, contents: 'q' }))
    parts.push(...(c.candidates?.[0].content?.parts ?? []));
  t.same(parts, [{ text: 'Let me look.' }, { functionCall: { name: 'lookup', args: { q: 'x' } } }]);
});

t.test('thinking: a thought part with its signature, then the answer', async (t) => {
  em.script({ kind: 'thinking', thinking: 'Considering options.', signature: 'c2lnLTE=', text: 'Go left.' });
  const r = await ai.models.generateContent({
    model,
    contents: 'which way?',
    config: { thinkingConfig: { includeThoughts: true } },
  });
  t.same(r.candidates?.[0].content?.parts, [
    { text: 'Considering options.', thought: true, thoughtSignature: 'c2lnLTE=' },
    { text: 'Go left.' },
  ]);
  t.equal(r.text, 'Go left.', 'the SDK leaves thoughts out of .text');
  t.ok((r.usageMetadata?.thoughtsTokenCount ?? 0) > 0);

  em.script({ kind: 'thinking', thinking: 'Hmm.', signature: 'c2lnLTI=', text: 'Right.' });
  const chunks = [];
  for await (const c of await ai.models.generateContentStream({ model, contents: 'again' })) chunks.push(c);
  t.same(chunks[0].candidates?.[0].content?.parts, [{ text: 'Hmm.', thought: true, thoughtSignature: 'c2lnLTI=' }]);
  t.equal(chunks.map((c) => c.text ?? '').join(''), 'Right.');
});

t.test('errors surface as the SDK ApiError with the status', async (t) => {
  em.script({ kind: 'error', status: 429, retryAfter: 12 });
  const e429 = await ai.models.generateContent({ model, contents: 'x' }).catch((e: unknown) => e);
  t.ok(e429 instanceof ApiError);
  t.equal((e429 as ApiError).status, 429);
  t.match((e429 as ApiError).message, /RESOURCE_EXHAUSTED/);

  em.script({ kind: 'error', status: 500, message: 'An internal error has occurred.' });
  const e500 = await ai.models.generateContent({ model, contents: 'x' }).catch((e: unknown) => e);
  t.ok(e500 instanceof ApiError);
  t.equal((e500 as ApiError).status, 500);
  t.match((e500 as ApiError).message, /An internal error has occurred/);

  em.script({ kind: 'error', status: 503 });
  const e503 = await ai.models.generateContentStream({ model, contents: 'x' }).catch((e: unknown) => e);
  t.ok(e503 instanceof ApiError, 'a stream request fails before the first chunk');
  t.equal((e503 as ApiError).status, 503);
});

t.test('raw bytes: CRLF-framed data lines in compact JSON; error JSON and retry-after', async (t) => {
  em.script({ kind: 'text', text: 'a b', chunks: ['a ', 'b'] });
  const res = await fetch(`${em.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  const raw = await res.text();
  const frames = raw.split('\r\n\r\n');
  t.equal(frames.pop(), '', 'every frame ends with a blank CRLF line');
  t.equal(frames.length, 2);
  t.match(
    frames[0],
    /^data: \{"candidates": \[\{"content": \{"parts": \[\{"text": "a "\}\],"role": "model"\},"index": 0\}\],"usageMetadata": \{/,
  );
  t.match(frames[1], /"finishReason": "STOP","index": 0\}\]/);

  em.script({ kind: 'error', status: 429, retryAfter: 30 });
  const err = await fetch(`${em.url}/v1beta/models/${model}:generateContent?key=k`, {
    method: 'POST',
    body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
  });
  t.equal(err.status, 429);
  t.equal(err.headers.get('retry-after'), '30');
  t.equal(err.headers.get('content-type'), 'application/json; charset=UTF-8');
  const body = (await err.json()) as {
    error: { code: number; status: string; details: Array<Record<string, unknown>> };
  };
  t.match(body, { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  t.match(body.error.details, [
    { '@type': 'type.googleapis.com/google.rpc.QuotaFailure' },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
  ]);

  const noKey = await fetch(`${em.url}/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
  });
  t.equal(noKey.status, 403);
  t.match(await noKey.json(), { error: { code: 403, status: 'PERMISSION_DENIED' } });
  const noContents = await fetch(`${em.url}/v1beta/models/${model}:generateContent?key=k`, {
    method: 'POST',
    body: '{}',
  });
  t.equal(noContents.status, 400);
  t.match(await noContents.json(), { error: { code: 400, status: 'INVALID_ARGUMENT' } });
});

t.test('without alt=sse a stream is one JSON array of chunks', async (t) => {
  em.script({ kind: 'text', text: 'x y', chunks: ['x ', 'y'] });
  const res = await fetch(`${em.url}/v1beta/models/${model}:streamGenerateContent?key=k`, {
    method: 'POST',
    body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
  });
  const arr = (await res.json()) as Array<{ candidates: Array<{ content: { parts: Array<{ text: string }> } }> }>;
  t.same(
    arr.map((c) => c.candidates[0].content.parts[0].text),
    ['x ', 'y'],
  );
});

t.test('cut: the first chunk arrives, then the socket dies and the SDK stream fails', async (t) => {
  em.script({ kind: 'cut', text: 'first then gone' });
  const got: string[] = [];
  const err = await (async () => {
    for await (const c of await ai.models.generateContentStream({
      model,
      contents: 'x',
      config: { automaticContinuation: false },
    }))
      got.push(c.text ?? '');
  })().catch((e: unknown) => e);
  t.same(got, ['first ']);
  t.ok(err instanceof Error, 'the stream rejects instead of ending quietly');
});
