import t from 'tap';
import { assistant, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import { geminiRelay } from '../../../adapters/gemini/gemini-relay.ts';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { assertInvalid } from './assert-invalid.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const base = (extra: Partial<ChatRequest> = {}): ChatRequest => chatRequest({ model: 'client-name', ...extra });
type Body = Record<string, unknown> & {
  contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  generationConfig?: Record<string, unknown>;
};
function encode(
  req: ChatRequest,
  warnings: string[] = [],
): { path: string; body: Body; headers: Record<string, string> } {
  const r = geminiUpstreamCodec.encodeRequest(req, 'gemini-2.5-flash', (field, message) =>
    warnings.push(`${field}: ${message}`),
  );
  return { path: r.path, body: r.body as Body, headers: r.headers };
}

t.test('paths: generateContent, or streamGenerateContent with alt=sse; no auth header from the codec', async (t) => {
  t.equal(encode(base()).path, '/v1beta/models/gemini-2.5-flash:generateContent');
  t.equal(encode(base({ stream: true })).path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  t.same(encode(base()).headers, {});
  t.equal(
    geminiUpstreamCodec.encodeRequest(base(), 'models/gemini-pro', () => {}).path,
    '/v1beta/models/gemini-pro:generateContent',
  );
});

t.test('system, roles, media, tool calls and results map onto contents', async (t) => {
  const { body } = encode(
    base({
      system: [{ type: 'text', text: 'Be terse.' }],
      messages: [
        user(
          text('What is this?'),
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
          { type: 'image', source: { kind: 'url', url: 'data:image/jpeg;base64,/9j/' } },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' } },
          { type: 'file', source: { kind: 'text', mediaType: 'text/plain', text: 'notes' } },
        ),
        assistant(toolCall('toolu_abc', 'lookup', '{"q":"x"}'), toolCall('call_lookup_1', 'lookup', '')),
        user(toolResult('toolu_abc', '{"hits":3}'), toolResult('call_lookup_1', 'plain text', { name: 'lookup' })),
        assistant(
          { type: 'code', language: 'python', code: 'print(1)' },
          { type: 'code-result', outcome: 'ok', output: '1' },
        ),
        user(toolResult('toolu_abc', 'bad', { isError: true })),
      ],
    }),
  );
  t.same(body.systemInstruction, { parts: [{ text: 'Be terse.' }] });
  t.same(body.contents, [
    {
      role: 'user',
      parts: [
        { text: 'What is this?' },
        { inlineData: { mimeType: 'image/png', data: 'iVBOR' } },
        { inlineData: { mimeType: 'image/jpeg', data: '/9j/' } },
        { inlineData: { mimeType: 'application/pdf', data: 'JVBER' } },
        { text: 'notes' },
      ],
    },
    // Calls another provider made carry no thought signature: Gemini 3's documented placeholder goes on the first.
    {
      role: 'model',
      parts: [
        {
          functionCall: { id: 'toolu_abc', name: 'lookup', args: { q: 'x' } },
          thoughtSignature: 'skip_thought_signature_validator',
        },
        { functionCall: { name: 'lookup', args: {} } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { id: 'toolu_abc', name: 'lookup', response: { hits: 3 } } },
        { functionResponse: { name: 'lookup', response: { content: 'plain text' } } },
      ],
    },
    {
      role: 'model',
      parts: [
        { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      ],
    },
    { role: 'user', parts: [{ functionResponse: { id: 'toolu_abc', name: 'lookup', response: { error: 'bad' } } }] },
  ]);
});

t.test('fields Gemini cannot take are refused naming field and provider', async (t) => {
  const msg = (parts: ChatRequest['messages'][0]['parts']) => base({ messages: [{ role: 'user', parts }] });
  assertInvalid(
    t,
    () => encode(msg([{ type: 'image', source: { kind: 'url', url: 'https://x.test/a.png' } }])),
    'messages[0].parts[0]',
    /gemini/,
  );
  assertInvalid(
    t,
    () => encode(msg([{ type: 'file', source: { kind: 'file-id', fileId: 'file-1' } }])),
    'messages[0].parts[0]',
    /gemini/,
  );
  assertInvalid(
    t,
    () => encode(msg([{ type: 'tool-result', callId: 'nowhere', content: [], isError: false }])),
    'messages[0].parts[0].callId',
    /function name/,
  );
  assertInvalid(
    t,
    () => encode(base({ sampling: { stop: ['1', '2', '3', '4', '5', '6'] } })),
    'stop',
    /gemini.*at most 5/,
  );
  assertInvalid(
    t,
    () => encode(base({ tools: [{ type: 'builtin', kind: 'computer-use', name: 'computer', options: {} }] })),
    'tools[0]',
    /computer.*gemini/,
  );
});

t.test('tools use parametersJsonSchema; builtins map by kind or relay their Gemini object', async (t) => {
  const schema = {
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
    additionalProperties: false,
  };
  const { body } = encode(
    base({
      tools: [
        { type: 'function', name: 'search', description: 'Search', parameters: schema },
        { type: 'builtin', kind: 'code-execution', options: {} },
        { type: 'builtin', kind: 'web-search', options: { user_location: {} } },
        {
          type: 'builtin',
          kind: 'web-search',
          name: 'googleSearchRetrieval',
          options: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC' } },
        },
      ],
    }),
  );
  t.same(body.tools, [
    { functionDeclarations: [{ name: 'search', description: 'Search', parametersJsonSchema: schema }] },
    { codeExecution: {} },
    { googleSearch: {} },
    { googleSearchRetrieval: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC' } } },
  ]);
});

t.test('tool choice maps onto functionCallingConfig', async (t) => {
  const tools: ChatRequest['tools'] = [
    { type: 'function', name: 'a', parameters: {} },
    { type: 'function', name: 'b', parameters: {} },
  ];
  const cfg = (toolChoice: ChatRequest['toolChoice']) => encode(base({ tools, toolChoice })).body;
  t.same(cfg({ type: 'auto' }).toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
  t.same(cfg({ type: 'none' }).toolConfig, { functionCallingConfig: { mode: 'NONE' } });
  t.same(cfg({ type: 'required' }).toolConfig, { functionCallingConfig: { mode: 'ANY' } });
  t.same(cfg({ type: 'tool', name: 'b' }).toolConfig, {
    functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] },
  });
  t.same(cfg({ type: 'allowed', names: ['a', 'b'], mode: 'required' }).toolConfig, {
    functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'b'] },
  });
  const auto = cfg({ type: 'allowed', names: ['b'], mode: 'auto' });
  t.same(auto.toolConfig, { functionCallingConfig: { mode: 'AUTO' } }, 'AUTO takes no names…');
  t.same(
    auto.tools,
    [{ functionDeclarations: [{ name: 'b', parametersJsonSchema: {} }] }],
    '…so only the allowed functions are declared',
  );
  const warnings: string[] = [];
  encode(base({ tools, parallelToolCalls: false }), warnings);
  t.match(warnings, [/^parallelToolCalls: /]);
});

t.test('sampling, output format and reasoning map onto generationConfig', async (t) => {
  // The sampling fields Gemini names as the IR does: they pass through as they are.
  const sameNamed = { temperature: 0.2, topP: 0.8, topK: 5, seed: 3, presencePenalty: 0.1, frequencyPenalty: 0.2 };
  const g = encode(
    base({
      sampling: {
        ...sameNamed,
        stop: ['END'],
        candidateCount: 1,
        logprobs: true,
        topLogprobs: 2,
      },
      maxTokens: 256,
      output: { type: 'json-schema', name: 'x', schema: { type: 'object', properties: { a: { type: 'integer' } } } },
      reasoning: { enabled: true, effort: 'medium' },
    }),
  ).body.generationConfig;
  t.same(g, {
    stopSequences: ['END'],
    ...sameNamed,
    candidateCount: 1,
    maxOutputTokens: 256,
    responseLogprobs: true,
    logprobs: 2,
    responseMimeType: 'application/json',
    responseJsonSchema: { type: 'object', properties: { a: { type: 'integer' } } },
    thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
  });
  t.same(encode(base({ output: { type: 'json' } })).body.generationConfig, { responseMimeType: 'application/json' });
  t.same(encode(base({ reasoning: { enabled: false } })).body.generationConfig, {
    thinkingConfig: { thinkingBudget: 0 },
  });
  t.same(
    encode(base({ reasoning: { enabled: true, budgetTokens: 3000, includeThoughts: false } })).body.generationConfig,
    { thinkingConfig: { thinkingBudget: 3000, includeThoughts: false } },
  );
  t.same(
    encode(base({ reasoning: { enabled: true, effort: 'high' }, extensions: { gemini: { thinkingLevel: 'HIGH' } } }))
      .body.generationConfig,
    { thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true } },
  );
  t.same(
    encode(
      base({
        output: { type: 'json-schema', name: 'response', schema: { type: 'string', enum: ['y', 'n'] } },
        extensions: { gemini: { responseMimeType: 'text/x.enum' } },
      }),
    ).body.generationConfig,
    { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: ['y', 'n'] } },
  );
});

t.test(
  'reasoning: Gemini thoughts and signatures go back in place, foreign reasoning is dropped with a warning',
  async (t) => {
    const warnings: string[] = [];
    const { body } = encode(
      base({
        messages: [
          userText('q'),
          assistant(
            { type: 'reasoning', text: 'thinking', origin: 'gemini' },
            { type: 'reasoning', text: '', signature: 'U0lHMQ==', origin: 'gemini' },
            toolCall('call_f_0', 'f', '{}'),
            { type: 'reasoning', text: 'claude thoughts', signature: 'EqX', origin: 'anthropic-messages' },
            text('done'),
            { type: 'reasoning', text: '', signature: 'VEFJTA==', origin: 'gemini' },
          ),
          assistant({ type: 'reasoning', text: 'only foreign', encrypted: 'enc', origin: 'openai-responses' }),
        ],
      }),
      warnings,
    );
    t.same(body.contents, [
      { role: 'user', parts: [{ text: 'q' }] },
      {
        role: 'model',
        parts: [
          { text: 'thinking', thought: true },
          { functionCall: { name: 'f', args: {} }, thoughtSignature: 'U0lHMQ==' },
          { text: 'done' },
          { text: '', thoughtSignature: 'VEFJTA==' },
        ],
      },
    ]);
    t.equal(warnings.length, 1, 'one warning per field, not per part');
    t.match(warnings[0], /^reasoning: reasoning from anthropic-messages cannot be replayed to gemini/);
  },
);

t.test('Gemini client extensions are relayed to their places; foreign ones warn', async (t) => {
  const warnings: string[] = [];
  const { body } = encode(
    base({
      tools: [{ type: 'function', name: 'f', parameters: {} }],
      serviceTier: 'scale',
      extensions: {
        gemini: {
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
          cachedContent: 'cachedContents/c1',
          responseModalities: ['TEXT'],
          speechConfig: { languageCode: 'en-US' },
          mediaResolution: 'MEDIA_RESOLUTION_LOW',
          enableEnhancedCivicAnswers: false,
          responseLogprobs: true,
          'generationConfig.imageConfig': { aspectRatio: '1:1' },
          'toolConfig.retrievalConfig': { languageCode: 'en' },
          'tools.urlContext': {},
          functionResponseSchemas: { f: { responseJsonSchema: { type: 'string' } } },
        },
        'openai-chat': { logit_bias: { '1': 5 } },
      },
    }),
    warnings,
  );
  t.same(body.safetySettings, [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
  t.equal(body.cachedContent, 'cachedContents/c1');
  t.same(body.generationConfig, {
    responseModalities: ['TEXT'],
    speechConfig: { languageCode: 'en-US' },
    mediaResolution: 'MEDIA_RESOLUTION_LOW',
    enableEnhancedCivicAnswers: false,
    imageConfig: { aspectRatio: '1:1' },
  });
  t.same(body.toolConfig, { retrievalConfig: { languageCode: 'en' } });
  t.same(body.tools, [
    { functionDeclarations: [{ name: 'f', parametersJsonSchema: {}, responseJsonSchema: { type: 'string' } }] },
    { urlContext: {} },
  ]);
  t.same(warnings, [
    'logit_bias: an option only openai-chat has: the gemini upstream has no field for it; dropped',
    "serviceTier: service tier 'scale' has no equivalent on the gemini upstream; dropped",
  ]);
  t.equal(encode(base({ serviceTier: 'flex' }), []).body.serviceTier, 'flex', 'a tier Gemini has is mapped');
  t.notOk('serviceTier' in encode(base({ serviceTier: 'auto' }), []).body, "'auto' is Gemini's default: left out");
});

t.test('same-format relay: model goes in the path (short form), the body is untouched', async (t) => {
  const body = { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { someFutureField: 1 } };
  t.same(geminiRelay(body, 'models/gemini-2.5-pro', false), {
    path: '/v1beta/models/gemini-2.5-pro:generateContent',
    body,
  });
  t.equal(
    geminiRelay(body, 'gemini-2.5-pro', true).path,
    '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
  );
});

t.test('a model turn whose calls have Gemini’s own signature keeps it; no placeholder is added', async (t) => {
  const { body } = encode(
    base({
      messages: [
        userText('q'),
        assistant(
          { type: 'reasoning', text: '', signature: 'R2VtaW5p', origin: 'gemini' },
          toolCall('call_f_0', 'f', '{}'),
        ),
        user(toolResult('call_f_0', 'ok', { name: 'f' })),
      ],
    }),
  );
  t.same((body.contents as Array<{ parts: unknown[] }>)[1].parts, [
    { functionCall: { name: 'f', args: {} }, thoughtSignature: 'R2VtaW5p' },
  ]);
});

// Peer pain #8: Gemini answers "Invalid JSON payload received. Unknown name \"$schema\"" for
// keywords outside its JSON Schema subset, even on parametersJsonSchema.
t.test(
  'tool and response schemas lose the keywords Gemini refuses, at any depth; data and property names are kept',
  async (t) => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $comment: 'generated',
      type: 'object',
      properties: {
        $schema: { type: 'string', description: 'a property that happens to be called $schema' },
        mode: { type: 'string', enum: ['a', 'b'], enumDescriptions: ['A', 'B'], default: 'a' },
        list: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'integer', $comment: 'c' } }, additionalProperties: false },
        },
      },
      required: ['mode'],
      additionalProperties: false,
    };
    const { body } = encode(
      base({
        tools: [{ type: 'function', name: 'f', parameters }],
        output: { type: 'json-schema', name: 'r', schema: { $schema: 'x', type: 'object' } },
      }),
    );
    const decl = (body.tools as Array<{ functionDeclarations: Array<{ parametersJsonSchema: unknown }> }>)[0]
      .functionDeclarations[0];
    t.same(decl.parametersJsonSchema, {
      type: 'object',
      properties: {
        $schema: { type: 'string', description: 'a property that happens to be called $schema' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        list: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'integer' } }, additionalProperties: false },
        },
      },
      required: ['mode'],
      additionalProperties: false,
    });
    t.same(body.generationConfig?.responseJsonSchema, { type: 'object' });
    t.ok('$schema' in parameters, 'the request itself is not changed');
  },
);
