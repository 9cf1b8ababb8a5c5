import t from 'tap';
import { toolCall, toolResult, userText } from '../ir-messages.ts';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { assertInvalid, type Asserts } from './assert-invalid.ts';

const ctx = (extra: Partial<InboundContext> = {}): InboundContext => ({
  headers: {},
  params: { model: 'gemini-2.5-flash' },
  query: {},
  ...extra,
});
const decode = (body: unknown, c: InboundContext = ctx()): ChatRequest => geminiClientCodec.decodeRequest(body, c);
const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const model = (...parts: Record<string, unknown>[]) => ({ role: 'model', parts });

const rejects = (tt: Asserts, body: unknown, param: string, message?: RegExp): void =>
  assertInvalid(tt, () => decode(body), param, message);

t.test('model comes from the path, a leading models/ is stripped, stream from the route', async (t) => {
  const r = decode(
    { contents: [user('hi')] },
    ctx({ params: { model: 'models/gemini-2.5-pro' }, streamByRoute: true }),
  );
  t.equal(r.model, 'gemini-2.5-pro');
  t.equal(r.stream, true);
  t.same(r.messages, [userText('hi')]);
  t.equal(decode({ contents: [user('hi')] }).stream, false);
});

t.test('spec validation rules each answer 400 naming the field', async (t) => {
  rejects(t, {}, 'contents', /required/);
  rejects(t, { contents: [] }, 'contents', /at least one/);
  rejects(t, { contents: [{ role: 'user' }] }, 'contents[0].parts', /required/);
  rejects(t, { contents: [{ role: 'user', parts: [] }] }, 'contents[0].parts');
  rejects(t, { contents: [{ role: 3, parts: [{ text: 'x' }] }] }, 'contents[0].role', /string/);
  // The only Content has a role polygate does not know: nothing is left to send.
  rejects(t, { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'contents');
  rejects(
    t,
    {
      contents: [
        user('a'),
        { role: 'user', parts: [{ fileData: { mimeType: 'video/mp4', fileUri: 'gs://b/v.mp4' } }] },
      ],
    },
    'contents[1].parts[0].fileData',
    /not supported/,
  );
  rejects(
    t,
    { contents: [{ parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'AA==' } }] }] },
    'contents[0].parts[0].inlineData',
    /exactly one/,
  );
  rejects(t, { contents: [{ parts: [{}] }] }, 'contents[0].parts[0]', /must hold one of/);
  rejects(t, { contents: [{ parts: [{ inlineData: { data: 'AA==' } }] }] }, 'contents[0].parts[0].inlineData.mimeType');
  rejects(
    t,
    { contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: 'not base64!' } }] }] },
    'contents[0].parts[0].inlineData.data',
    /base64/,
  );
  rejects(t, { contents: [model({ functionCall: { args: {} } })] }, 'contents[0].parts[0].functionCall.name');
  rejects(
    t,
    { contents: [{ role: 'user', parts: [{ functionResponse: { response: {} } }] }] },
    'contents[0].parts[0].functionResponse.name',
  );
  rejects(
    t,
    { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f' } }] }] },
    'contents[0].parts[0].functionResponse.response',
  );
  rejects(
    t,
    { contents: [model({ executableCode: { language: 1, code: '1' } })] },
    'contents[0].parts[0].executableCode.language',
  );
  rejects(
    t,
    { contents: [model({ codeExecutionResult: { output: '1' } })] },
    'contents[0].parts[0].codeExecutionResult.outcome',
  );
  // Open world (both were 400s): unknown fields are noted by path or kept for a Gemini upstream.
  t.equal(
    decode({ contents: [{ parts: [{ text: 'x', bogus: 1 }] }] }).extensions.gemini?.['contents[0].parts[0].bogus'],
    'bogus',
  );
  t.equal(decode({ contents: [user('x')], bogus: true }).extensions.gemini?.bogus, true);
  rejects(
    t,
    { contents: [user('x')], systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } },
    'systemInstruction.parts[0]',
    /text parts only/,
  );
});

t.test('generationConfig limits and enums', async (t) => {
  const g = (generationConfig: unknown) => ({ contents: [user('x')], generationConfig });
  rejects(t, g({ stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] }), 'generationConfig.stopSequences', /at most 5/);
  rejects(t, g({ temperature: 2.5 }), 'generationConfig.temperature', /between 0 and 2/);
  rejects(t, g({ temperature: -0.1 }), 'generationConfig.temperature');
  rejects(t, g({ topP: 1.5 }), 'generationConfig.topP');
  rejects(t, g({ topK: 0 }), 'generationConfig.topK', /positive/);
  rejects(t, g({ candidateCount: 0 }), 'generationConfig.candidateCount');
  rejects(t, g({ candidateCount: 2 }), 'generationConfig.candidateCount', /only 1 candidate/);
  rejects(t, g({ maxOutputTokens: 0 }), 'generationConfig.maxOutputTokens');
  rejects(t, g({ responseMimeType: 'text/html' }), 'generationConfig.responseMimeType');
  rejects(t, g({ responseSchema: { type: 'STRING' } }), 'generationConfig.responseSchema', /requires responseMimeType/);
  rejects(
    t,
    g({ responseMimeType: 'application/json', responseSchema: { type: 'STRING' }, responseJsonSchema: {} }),
    'generationConfig.responseJsonSchema',
    /mutually exclusive/,
  );
  rejects(
    t,
    g({ responseMimeType: 'application/json', responseSchema: { type: 5 } }),
    'generationConfig.responseSchema.type',
  );
  rejects(t, g({ responseMimeType: 'text/x.enum' }), 'generationConfig.responseMimeType', /enum/);
  // Open world (these were 400s): words polygate does not act on are kept as sent; a non-TEXT
  // modality and speechConfig are refused by the upstream encoders that cannot produce them.
  t.same(decode(g({ responseModalities: ['TEXT', 'VIDEO'] })).extensions.gemini?.responseModalities, ['TEXT', 'VIDEO']);
  t.equal(
    decode(g({ mediaResolution: 'MEDIA_RESOLUTION_ULTRA' })).extensions.gemini?.mediaResolution,
    'MEDIA_RESOLUTION_ULTRA',
  );
  rejects(t, g({ responseModalities: ['TEXT', 7] }), 'generationConfig.responseModalities[1]');
  rejects(t, g({ logprobs: 3 }), 'generationConfig.logprobs', /responseLogprobs/);
  rejects(
    t,
    g({ thinkingConfig: { thinkingBudget: 100, thinkingLevel: 'LOW' } }),
    'generationConfig.thinkingConfig.thinkingLevel',
  );
  t.same(decode(g({ speechConfig: { languageCode: 'xx-YY' } })).extensions.gemini?.speechConfig, {
    languageCode: 'xx-YY',
  });
  t.same(
    decode({ contents: [user('x')], safetySettings: [{ category: 'HARM_CATEGORY_FOO', threshold: 'BLOCK_SOME' }] })
      .extensions.gemini?.safetySettings,
    [{ category: 'HARM_CATEGORY_FOO', threshold: 'BLOCK_SOME' }],
  );
  rejects(
    t,
    { contents: [user('x')], safetySettings: [{ category: 3, threshold: 'BLOCK_NONE' }] },
    'safetySettings[0].category',
  );
  rejects(
    t,
    { contents: [user('x')], safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' }] },
    'safetySettings[0].threshold',
    /required/,
  );
  rejects(t, { contents: [user('x')], cachedContent: 'abc' }, 'cachedContent');
});

t.test('tools and toolConfig validation', async (t) => {
  const decl = (d: unknown) => ({ contents: [user('x')], tools: [{ functionDeclarations: [d] }] });
  rejects(t, decl({ description: 'no name' }), 'tools[0].functionDeclarations[0].name', /required/);
  rejects(t, decl({ name: '1bad name' }), 'tools[0].functionDeclarations[0].name', /letter or underscore/);
  rejects(
    t,
    decl({ name: 'f', parameters: { type: 'OBJECT' }, parametersJsonSchema: {} }),
    'tools[0].functionDeclarations[0].parametersJsonSchema',
  );
  rejects(
    t,
    {
      contents: [user('x')],
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO', allowedFunctionNames: ['f'] } },
    },
    'toolConfig.functionCallingConfig.allowedFunctionNames',
    /only be set when mode is ANY/,
  );
  rejects(
    t,
    {
      contents: [user('x')],
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } },
    },
    'toolConfig.functionCallingConfig.allowedFunctionNames[0]',
  );
  rejects(
    t,
    { contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 2 } } },
    'toolConfig.functionCallingConfig.mode',
  );
});

t.test('snake_case spellings are accepted everywhere and errors use the client spelling', async (t) => {
  const r = decode({
    system_instruction: { parts: [{ text: 'sys' }] },
    contents: [
      {
        role: 'user',
        parts: [
          { text: 'look' },
          { inline_data: { mime_type: 'image/jpeg', data: '/9j/4AAQ' } },
          { inline_data: { mime_type: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
    ],
    tools: [
      { function_declarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } }] },
      { code_execution: {} },
    ],
    tool_config: { function_calling_config: { mode: 'NONE' } },
    generation_config: {
      max_output_tokens: 64,
      stop_sequences: ['END'],
      top_k: 3,
      top_p: 0.9,
      response_mime_type: 'application/json',
      response_schema: { type: 'OBJECT' },
    },
    safety_settings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_ONLY_HIGH' }],
  });
  t.same(r.system, [{ type: 'text', text: 'sys' }]);
  t.same(r.messages[0].parts, [
    { type: 'text', text: 'look' },
    { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } },
    { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } },
  ]);
  t.same(r.tools, [
    { type: 'function', name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } },
    { type: 'builtin', kind: 'code-execution', name: 'codeExecution', options: {} },
  ]);
  t.same(r.toolChoice, { type: 'none' });
  t.equal(r.maxTokens, 64);
  t.same(r.sampling, { stop: ['END'], topK: 3, topP: 0.9 });
  t.same(r.output, { type: 'json-schema', name: 'response', schema: { type: 'object' } });
  t.same(r.extensions.gemini?.safetySettings, [
    { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_ONLY_HIGH' },
  ]);
  rejects(
    t,
    { contents: [{ parts: [{ file_data: { mime_type: 'a/b', file_uri: 'x' } }] }] },
    'contents[0].parts[0].file_data',
    /not supported/,
  );
  rejects(
    t,
    { contents: [user('x')], generation_config: { stop_sequences: ['1', '2', '3', '4', '5', '6'] } },
    'generation_config.stop_sequences',
  );
});

t.test('OpenAPI-subset Schema converts to JSON Schema (lower-case types, nullable)', async (t) => {
  const r = decode({
    contents: [user('x')],
    tools: [
      {
        functionDeclarations: [
          {
            name: 'book',
            description: 'Books a table',
            parameters: {
              type: 'OBJECT',
              properties: {
                when: { type: 'STRING', format: 'date-time', description: 'time' },
                size: { type: 'INTEGER', minimum: 1, maximum: 12 },
                notes: { type: 'STRING', nullable: true },
                tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['a', 'b'] }, minItems: '1', maxItems: 3 },
                mood: { type: 'STRING', enum: ['happy', 'sad'], nullable: true },
                either: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }], nullable: true },
                ex: { type: 'string', example: 'x' },
              },
              required: ['when', 'size'],
              propertyOrdering: ['when', 'size'],
            },
          },
        ],
      },
    ],
  });
  t.same(r.tools[0], {
    type: 'function',
    name: 'book',
    description: 'Books a table',
    parameters: {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time', description: 'time' },
        size: { type: 'integer', minimum: 1, maximum: 12 },
        notes: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 3 },
        mood: { type: ['string', 'null'], enum: ['happy', 'sad', null] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
        ex: { type: 'string', examples: ['x'] },
      },
      required: ['when', 'size'],
    },
  });
  const j = decode({
    contents: [user('x')],
    tools: [
      { functionDeclarations: [{ name: 'g', parametersJsonSchema: { type: 'object', additionalProperties: false } }] },
    ],
  });
  t.same(
    j.tools[0],
    { type: 'function', name: 'g', parameters: { type: 'object', additionalProperties: false } },
    'parametersJsonSchema is kept exactly',
  );
});

t.test('output formats: json, json-schema, text/x.enum', async (t) => {
  const out = (generationConfig: unknown) => decode({ contents: [user('x')], generationConfig });
  t.same(out({ responseMimeType: 'application/json' }).output, { type: 'json' });
  t.same(
    out({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { a: { type: 'integer' } } },
    }).output,
    {
      type: 'json-schema',
      name: 'response',
      schema: { type: 'object', properties: { a: { type: 'integer' } } },
    },
  );
  const e = out({ responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: ['yes', 'no'] } });
  t.same(e.output, { type: 'json-schema', name: 'response', schema: { type: 'string', enum: ['yes', 'no'] } });
  t.equal(e.extensions.gemini?.responseMimeType, 'text/x.enum');
  t.equal(out({ responseMimeType: 'text/plain' }).output, undefined);
});

t.test('thinkingConfig becomes reasoning; Gemini-only knobs are kept in extensions', async (t) => {
  const th = (thinkingConfig: unknown) =>
    decode({ contents: [user('x')], generationConfig: { thinkingConfig } }).reasoning;
  t.same(th({ thinkingBudget: 0 }), { enabled: false });
  t.same(th({ thinkingBudget: 2048, includeThoughts: true }), {
    enabled: true,
    includeThoughts: true,
    budgetTokens: 2048,
  });
  t.same(th({ thinkingBudget: -1 }), { enabled: true });
  t.same(th({ thinkingLevel: 'HIGH' }), { enabled: true, effort: 'high' });
  const r = decode({
    contents: [user('x')],
    cachedContent: 'cachedContents/abc',
    generationConfig: {
      responseModalities: ['TEXT', 'AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } }, languageCode: 'en-US' },
      mediaResolution: 'MEDIA_RESOLUTION_LOW',
      enableEnhancedCivicAnswers: true,
      responseLogprobs: true,
      logprobs: 4,
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      imageConfig: { aspectRatio: '16:9' },
    },
    tools: [{ urlContext: {} }],
    toolConfig: { retrievalConfig: { languageCode: 'en' } },
  });
  t.same(r.sampling, { seed: 7, presencePenalty: 0.5, frequencyPenalty: -0.5, logprobs: true, topLogprobs: 4 });
  t.same(r.extensions.gemini, {
    'tools.urlContext': {},
    'toolConfig.retrievalConfig': { languageCode: 'en' },
    'generationConfig.imageConfig': { aspectRatio: '16:9' },
    responseLogprobs: true,
    logprobs: 4,
    responseModalities: ['TEXT', 'AUDIO'],
    mediaResolution: 'MEDIA_RESOLUTION_LOW',
    enableEnhancedCivicAnswers: true,
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } }, languageCode: 'en-US' },
    cachedContent: 'cachedContents/abc',
  });
});

t.test('function calls get stable ids; responses are matched back by name and order', async (t) => {
  const r = decode({
    contents: [
      user('weather in Paris and Rome, and the time'),
      model(
        { functionCall: { name: 'weather', args: { city: 'Paris' } } },
        { functionCall: { name: 'clock', args: {} } },
        { functionCall: { name: 'weather', args: { city: 'Rome' } } },
      ),
      {
        role: 'function',
        parts: [
          { functionResponse: { name: 'clock', response: { time: '12:00' } } },
          { functionResponse: { name: 'weather', response: { temp: 20 } } },
          { functionResponse: { name: 'weather', response: { error: 'no station' } } },
        ],
      },
      model({ functionCall: { name: 'weather', args: { city: 'Oslo' }, id: 'own-id' } }),
      { role: 'tool', parts: [{ functionResponse: { name: 'weather', response: { output: 'cold' }, id: 'own-id' } }] },
    ],
  });
  const calls = r.messages[1].parts.map((p) => (p.type === 'tool-call' ? [p.id, p.name, p.args] : null));
  t.same(calls, [
    ['call_weather_0', 'weather', '{"city":"Paris"}'],
    ['call_clock_0', 'clock', '{}'],
    ['call_weather_1', 'weather', '{"city":"Rome"}'],
  ]);
  t.equal(r.messages[2].role, 'user', 'function turns are user turns in the IR');
  t.same(r.messages[2].parts, [
    toolResult('call_clock_0', '{"time":"12:00"}', { name: 'clock' }),
    toolResult('call_weather_0', '{"temp":20}', { name: 'weather' }),
    toolResult('call_weather_1', '{"error":"no station"}', { name: 'weather', isError: true }),
  ]);
  t.match(r.messages[3].parts[0], { type: 'tool-call', id: 'own-id' });
  t.match(r.messages[4].parts[0], { type: 'tool-result', callId: 'own-id', isError: false });
  // The same conversation decodes to the same ids every time (deterministic).
  t.same(
    decode({ contents: [user('a'), model({ functionCall: { name: 'weather' } })] }).messages[1].parts[0],
    toolCall('call_weather_0', 'weather', '{}'),
  );
});

t.test('thought parts become reasoning; thoughtSignature on other parts is kept before them', async (t) => {
  const r = decode({
    contents: [
      user('q'),
      model(
        { text: 'Let me ', thought: true },
        { text: 'think.', thought: true, thoughtSignature: 'U0lHMQ==' },
        { text: 'Answer', thoughtSignature: 'U0lHMg==' },
        { functionCall: { name: 'f', args: { x: 1 } }, thoughtSignature: 'U0lHMw==' },
        { text: '', thoughtSignature: 'U0lHNA==' },
        { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } },
      ),
    ],
  });
  t.same(r.messages[1].parts, [
    { type: 'reasoning', text: 'Let me think.', signature: 'U0lHMQ==', origin: 'gemini' },
    { type: 'reasoning', text: '', signature: 'U0lHMg==', origin: 'gemini' },
    { type: 'text', text: 'Answer' },
    { type: 'reasoning', text: '', signature: 'U0lHMw==', origin: 'gemini' },
    toolCall('call_f_0', 'f', '{"x":1}'),
    { type: 'reasoning', text: '', signature: 'U0lHNA==', origin: 'gemini' },
    { type: 'code', language: 'python', code: 'print(1)' },
    { type: 'code-result', outcome: 'ok', output: '1\n' },
  ]);
  rejects(t, { contents: [model({ functionCall: { name: 'f' }, thought: true })] }, 'contents[0].parts[0].thought');
});

// What Gemini CLI 0.61 sends: thinkingConfig with thinkingLevel / includeThoughts, function
// declarations with parametersJsonSchema, fields polygate does not know. None is a 400.
t.test(
  'open world: thinkingConfig levels and budgets, parametersJsonSchema, unknown fields noted by path',
  async (t) => {
    const levels = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' } as const;
    for (const [level, effort] of Object.entries(levels)) {
      const r = decode({
        contents: [user('x')],
        generationConfig: { thinkingConfig: { thinkingLevel: level, includeThoughts: true } },
      });
      t.same(r.reasoning, { enabled: true, includeThoughts: true, effort }, level);
    }
    t.same(
      decode({ contents: [user('x')], generationConfig: { thinkingConfig: { thinkingBudget: -1 } } }).reasoning,
      { enabled: true },
      '-1: dynamic',
    );
    t.same(
      decode({ contents: [user('x')], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }).reasoning,
      { enabled: false },
      '0: off',
    );
    rejects(
      t,
      { contents: [user('x')], generationConfig: { thinkingConfig: { thinkingLevel: 4 } } },
      'generationConfig.thinkingConfig.thinkingLevel',
    );

    const schema = {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    };
    const r = decode({
      contents: [{ role: 'user', parts: [{ text: 'x', videoMetadata: { fps: 1 } }, { toolCall: { id: 't1' } }] }],
      tools: [
        {
          functionDeclarations: [
            { name: 'read_file', description: 'Reads a file', parametersJsonSchema: schema, behavior: 'BLOCKING' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'VALIDATED', streamFunctionCallArguments: true } },
      generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH', thinkingSummaries: 'AUTO' } },
      futureTopLevel: { a: 1 },
    });
    t.same(
      r.tools,
      [{ type: 'function', name: 'read_file', description: 'Reads a file', parameters: schema }],
      'the JSON Schema is kept as sent (the Gemini encoder cleans it)',
    );
    t.same(r.toolChoice, { type: 'auto' }, 'VALIDATED without names: auto');
    t.same(r.messages, [userText('x')], 'a part of unknown data dropped');
    t.match(r.extensions.gemini, {
      'contents[0].parts[0].videoMetadata': 'videoMetadata',
      'contents[0].parts[1].toolCall': 'toolCall',
      'tools[0].functionDeclarations[0].behavior': 'behavior',
      'toolConfig.functionCallingConfig.streamFunctionCallArguments': 'streamFunctionCallArguments',
      'generationConfig.thinkingConfig.thinkingSummaries': 'thinkingSummaries',
      futureTopLevel: { a: 1 },
    });
  },
);

t.test(
  'field spellings past the spelling cache: many distinct unknown keys, then snake_case fields still read',
  async (t) => {
    // gemini-fields.ts keeps each name's other spelling in a bounded cache; names past it are worked out again.
    const extra = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`extra_field_${i}`, i]));
    const r = decode({
      contents: [user('x')],
      ...extra,
      generation_config: { temperature: 0.5, max_output_tokens: 7 },
    });
    const kept = r.extensions.gemini ?? {};
    const camel = (k: string) => k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    t.equal(
      Object.keys(extra).filter((k) => kept[camel(k)] === extra[k]).length,
      3000,
      'every unknown key kept under its lowerCamelCase name',
    );
    t.equal(r.sampling.temperature, 0.5);
    t.equal(r.maxTokens, 7);
    const again = decode({ contents: [user('y')], system_instruction: { parts: [{ text: 'be brief' }] } });
    t.same(again.system, [{ type: 'text', text: 'be brief' }]);
  },
);
