// Fuzzing every decoder of the gemini adapter (test/fuzz/chat-fuzz.ts says the property):
// generateContent client requests with their path and query, upstream GenerateContentResponses,
// upstream `data:` streams, HTTP errors and in-stream `{error}` chunks.
import fc from 'fast-check';
import t from 'tap';
import { decodeGeminiStreamError, geminiClientCodec, geminiUpstreamCodec } from '../../adapters/gemini/index.ts';
import type { InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { clientSides, fuzz, fuzzChatFormat, regression } from './chat-fuzz.ts';
import { fixtureStreams } from './fixtures.ts';
import { bodies } from './mutate-json.ts';

const contexts: fc.Arbitrary<InboundContext> = fc.record({
  headers: fc.constant({}),
  params: fc.record({
    model: fc.oneof(
      fc.constantFrom('gemini-2.5-flash', 'models/gemini-2.5-pro', '', 'models/'),
      fc.string({ maxLength: 20 }),
    ),
  }),
  query: fc.record({ alt: fc.constantFrom(undefined, 'sse', 'json', '') }, { requiredKeys: [] }),
  streamByRoute: fc.boolean(),
});

/** A Gemini CLI turn (docs/clients.md; captured requests in test/clients/fixtures/): system instruction, JSON-schema tools, thinking. */
const geminiCliTurn = {
  systemInstruction: { role: 'user', parts: [{ text: 'You are an interactive CLI agent.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'Read a.ts' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
    {
      role: 'model',
      parts: [
        { text: 'Reading.', thought: true, thoughtSignature: 'CiQB' },
        { functionCall: { id: 'fc-1', name: 'read_file', args: { path: 'a.ts' } } },
      ],
    },
    { role: 'user', parts: [{ functionResponse: { id: 'fc-1', name: 'read_file', response: { output: 'code' } } }] },
    {
      role: 'model',
      parts: [
        { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      ],
    },
  ],
  tools: [
    {
      functionDeclarations: [
        {
          name: 'read_file',
          description: 'Reads',
          parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      ],
    },
    { googleSearch: {} },
    { codeExecution: {} },
  ],
  toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] } },
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
  generationConfig: {
    temperature: 0,
    topP: 1,
    topK: 64,
    maxOutputTokens: 8192,
    candidateCount: 1,
    stopSequences: ['END'],
    responseMimeType: 'application/json',
    responseJsonSchema: { type: 'object' },
    thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' },
    seed: 7,
  },
  cachedContent: 'cachedContents/abc',
};

/** Small seeds have few positions, so edits land on the media fields often. */
const mediaTurn = {
  contents: [
    {
      role: 'user',
      parts: [
        { inlineData: { mimeType: 'text/plain', data: 'SGVsbG8=' } },
        { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
        { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    },
  ],
};

const streams = fixtureStreams('gemini', false);
const errors = [
  {
    error: {
      code: 429,
      message: 'Resource has been exhausted',
      status: 'RESOURCE_EXHAUSTED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }],
    },
  },
  {
    error: {
      code: 400,
      message: 'API key not valid.',
      status: 'INVALID_ARGUMENT',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
    },
  },
];

fuzzChatFormat(t, {
  client: geminiClientCodec,
  upstream: geminiUpstreamCodec,
  requests: [geminiCliTurn, mediaTurn],
  contexts,
  // Each recorded chunk is a whole GenerateContentResponse, as a non-streaming answer is.
  results: streams.flat().map((f) => JSON.parse(f.data) as unknown),
  streams,
  errors,
});

t.test('an in-stream {error} chunk decodes to a GatewayError every client encodes', async (t) => {
  const clients = clientSides();
  fuzz(t, 'decodeGeminiStreamError', bodies(errors), (body) => {
    const err = decodeGeminiStreamError(body);
    if (!(err instanceof GatewayError))
      throw new TypeError('decodeGeminiStreamError returned something other than a GatewayError');
    for (const c of clients) JSON.stringify(c.codec.encodeError(err));
  });
});

// Counterexamples the fuzzer found, kept as plain cases (each failed before its fix).
t.test('regressions', async (t) => {
  const ctx: InboundContext = { headers: {}, params: { model: 'gemini-2.5-flash' }, query: {} };
  const longName = 'x'.repeat(100_000);
  regression(
    t,
    'a 100,000-character function name: the synthetic call id check built a RegExp too large to compile',
    () => {
      const req = geminiClientCodec.decodeRequest(
        {
          contents: [
            { role: 'user', parts: [{ text: 'hi' }] },
            { role: 'model', parts: [{ functionCall: { name: longName, args: {} } }] },
            { role: 'user', parts: [{ functionResponse: { name: longName, response: {} } }] },
          ],
        },
        ctx,
      );
      const body = geminiUpstreamCodec.encodeRequest(req, 'gemini-2.5-flash', () => {}).body as {
        contents: Array<{ parts: Array<Record<string, unknown>> }>;
      };
      t.same(
        body.contents[1].parts[0].functionCall,
        { name: longName, args: {} },
        'the synthetic id stays out of the upstream request',
      );
    },
  );
});
