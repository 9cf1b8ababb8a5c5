// Family C's limits and field rules through a running polygate: every one answered with a 400
// in the family's shape, {error: {code: 400, message, status: 'INVALID_ARGUMENT'}}, whose message
// names the field as the client spelled it; a missing or wrong key is a 401 in the same shape,
// whether the key came as ?key= or x-goog-api-key.
import t from 'tap';
import { ApiError, GoogleGenAI } from '@google/genai';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const gw = await startInProcessGateway(testConfig({}));
t.teardown(() => gw.stop());

type GeminiError = { error: { code: number; message: string; status: string } };
const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
const ok = { contents };

const post = async (body: unknown, opts: { method?: string; key?: string | null; header?: string | null } = {}) => {
  const key = opts.key === undefined ? TEST_KEY : opts.key;
  const url = new URL(`${gw.url}/v1beta/models/echo:${opts.method ?? 'generateContent'}`);
  if (opts.method === 'streamGenerateContent') url.searchParams.set('alt', 'sse');
  if (key !== null) url.searchParams.set('key', key);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.header) headers['x-goog-api-key'] = opts.header;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as GeminiError };
};

t.test('the valid baseline passes', async (t) => {
  const r = await post({ ...ok, generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e'], temperature: 2 } });
  t.equal(r.status, 200, 'five stop sequences and temperature 2.0 are inside the limits');
  t.equal((await post({ ...ok, generationConfig: { temperature: 0 } })).status, 200, 'temperature 0.0 too');
});

const cases: Array<[string, Record<string, unknown>, string]> = [
  // The spec's Limits table for family C.
  [
    'six stop sequences (at most 5)',
    { ...ok, generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] } },
    'generationConfig.stopSequences',
  ],
  ['temperature above 2.0', { ...ok, generationConfig: { temperature: 2.01 } }, 'generationConfig.temperature'],
  ['temperature below 0.0', { ...ok, generationConfig: { temperature: -0.1 } }, 'generationConfig.temperature'],
  [
    'snake_case spelling named as sent',
    { ...ok, generation_config: { stop_sequences: ['a', 'b', 'c', 'd', 'e', 'f'] } },
    'generation_config.stop_sequences',
  ],
  // Required fields and enums of the field tables.
  ['contents missing', {}, 'contents'],
  ['a Content without parts', { contents: [{ role: 'user' }] }, 'contents[0].parts'],
  // A role polygate does not know leaves the Content out (#29); with none left there is nothing to send.
  ['only Contents of an unknown role', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'contents'],
  [
    'inlineData without mimeType',
    { contents: [{ parts: [{ inlineData: { data: 'AAAA' } }] }] },
    'contents[0].parts[0].inlineData.mimeType',
  ],
  [
    'fileData (unsupported by the service)',
    { contents: [{ parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://x/y.pdf' } }] }] },
    'contents[0].parts[0].fileData',
  ],
  [
    'functionResponse without response',
    { contents: [{ parts: [{ functionResponse: { name: 'f' } }] }] },
    'contents[0].parts[0].functionResponse.response',
  ],
  [
    'a FunctionDeclaration without name',
    { ...ok, tools: [{ functionDeclarations: [{ description: 'x' }] }] },
    'tools[0].functionDeclarations[0].name',
  ],
  [
    'a SafetySetting without threshold',
    { ...ok, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' }] },
    'safetySettings[0].threshold',
  ],
  [
    'systemInstruction with a non-text part',
    { ...ok, systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } },
    'systemInstruction.parts[0]',
  ],
  [
    'an unknown responseMimeType',
    { ...ok, generationConfig: { responseMimeType: 'text/html' } },
    'generationConfig.responseMimeType',
  ],
  ['cachedContent not of the form cachedContents/{id}', { ...ok, cachedContent: 'abc' }, 'cachedContent'],
];

for (const [name, body, field] of cases) {
  t.test(name, async (t) => {
    const r = await post(body);
    t.equal(r.status, 400);
    t.equal(r.body.error.code, 400);
    t.equal(r.body.error.status, 'INVALID_ARGUMENT');
    t.ok(r.body.error.message.includes(field), `message names ${field}: ${r.body.error.message}`);
  });
}

// Open world (docs/open-world.md): these were 400s; words polygate does not act on are no error (a Gemini
// upstream gets them by relay; a translated route refuses only output it cannot produce).
const accepted: Array<[string, Record<string, unknown>]> = [
  [
    'executableCode with an unknown language',
    { contents: [{ parts: [{ executableCode: { language: 'RUBY', code: 'x' } }] }] },
  ],
  [
    'an unknown FunctionCallingMode',
    {
      ...ok,
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } },
    },
  ],
  [
    'responseSchema with an unknown type',
    { ...ok, generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'MAP' } } },
  ],
  [
    'an unknown HarmCategory',
    { ...ok, safetySettings: [{ category: 'HARM_CATEGORY_RUDENESS', threshold: 'BLOCK_NONE' }] },
  ],
  ['an unknown MediaResolution', { ...ok, generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_ULTRA' } }],
  ['an unknown top-level field', { ...ok, someFutureField: { on: true } }],
  ['an unknown part field', { contents: [{ role: 'user', parts: [{ text: 'hi', futureHint: 1 }] }] }],
];
for (const [name, body] of accepted) {
  t.test(`accepted: ${name}`, async (t) => {
    t.equal((await post(body)).status, 200);
  });
}

t.test('the same limits on streamGenerateContent', async (t) => {
  const r = await post(
    { ...ok, generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] } },
    { method: 'streamGenerateContent' },
  );
  t.equal(r.status, 400);
  t.match(r.body, { error: { code: 400, status: 'INVALID_ARGUMENT', message: /generationConfig\.stopSequences/ } });
});

t.test('the official SDK sees the 400 as an ApiError', async (t) => {
  const ai = new GoogleGenAI({ apiKey: TEST_KEY, apiVersion: 'v1beta', httpOptions: { baseUrl: gw.url } });
  const err = await ai.models
    .generateContent({ model: 'echo', contents: 'x', config: { temperature: 3 } })
    .catch((e: unknown) => e);
  t.ok(err instanceof ApiError);
  t.equal((err as ApiError).status, 400);
  t.match((err as ApiError).message, /generationConfig\.temperature/);
});

t.test('401 UNAUTHENTICATED for a missing or wrong key, by ?key= and by x-goog-api-key', async (t) => {
  const unauthenticated = (r: { status: number; body: GeminiError }, what: string): void => {
    t.equal(r.status, 401, what);
    t.equal(r.body.error.code, 401, what);
    t.equal(r.body.error.status, 'UNAUTHENTICATED', what);
    t.type(r.body.error.message, 'string', what);
  };
  unauthenticated(await post(ok, { key: null }), 'no key at all');
  unauthenticated(await post(ok, { key: 'wrong-key' }), 'a wrong ?key=');
  unauthenticated(await post(ok, { key: null, header: 'wrong-key' }), 'a wrong x-goog-api-key');
  t.equal((await post(ok, { key: null, header: TEST_KEY })).status, 200, 'x-goog-api-key accepted');
  t.equal((await post(ok, { key: TEST_KEY })).status, 200, '?key= accepted');
  const ai = new GoogleGenAI({ apiKey: 'wrong-key', apiVersion: 'v1beta', httpOptions: { baseUrl: gw.url } });
  const err = await ai.models.generateContent({ model: 'echo', contents: 'x' }).catch((e: unknown) => e);
  t.ok(err instanceof ApiError && err.status === 401, 'the SDK sees a 401 ApiError');
});
