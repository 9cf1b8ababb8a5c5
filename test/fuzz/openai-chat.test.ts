// Fuzzing every decoder of the openai-chat adapter (test/fuzz/chat-fuzz.ts says the property):
// /v1/chat/completions client requests, upstream completions, upstream chunk streams and errors.
import fc from 'fast-check';
import t from 'tap';
import { geminiClientCodec, geminiUpstreamCodec } from '../../adapters/gemini/index.ts';
import { responsesClientCodec } from '../../adapters/openai-responses/index.ts';
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { openaiChatClientCodec, openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import type { InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { caught, clientSides, fuzzChatFormat, regression, upstreamCodecs } from './chat-fuzz.ts';
import { fixtureStreams } from './fixtures.ts';
import { chatCompletion, chatToolRound } from '../adapters/openai-chat/fixtures.ts';

const contexts: fc.Arbitrary<InboundContext> = fc.constant({ headers: {}, params: {}, query: {} });

const completion = chatCompletion(
  {
    content: 'Hello!',
    reasoning_content: 'Thinking.',
    annotations: [
      {
        type: 'url_citation',
        url_citation: { url: 'https://example.com', title: 'Example', start_index: 0, end_index: 5 },
      },
    ],
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'noop', arguments: '' } },
    ],
  },
  'tool_calls',
  {
    prompt_tokens: 1200,
    completion_tokens: 300,
    total_tokens: 1500,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 256, audio_tokens: 0 },
  },
);

/** A Chat Completions request with every commonly sent field. */
const fullRequest = {
  model: 'gpt-4.1',
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
    {
      role: 'user',
      name: 'ann',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'Calling.' }],
      refusal: null,
      reasoning_content: 'think',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '{"ok":true}' }] },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'f',
        description: 'F',
        parameters: { type: 'object', properties: { a: { type: 'integer' } } },
        strict: true,
      },
    },
  ],
  tool_choice: { type: 'function', function: { name: 'f' } },
  parallel_tool_calls: false,
  response_format: {
    type: 'json_schema',
    json_schema: { name: 'out', schema: { type: 'object', properties: { a: { type: 'string' } } }, strict: true },
  },
  temperature: 1,
  top_p: 1,
  n: 1,
  stop: ['END'],
  max_completion_tokens: 100,
  presence_penalty: 0,
  frequency_penalty: 0,
  logit_bias: { '50256': -100 },
  seed: 1,
  user: 'u',
  stream: true,
  stream_options: { include_usage: true },
  reasoning_effort: 'low',
  metadata: { a: 'b' },
  store: false,
  service_tier: 'auto',
  web_search_options: {},
  prediction: { type: 'content', content: 'x' },
};

/** Small seeds have few positions, so edits land on the media fields often. */
const mediaTurn = {
  model: 'gpt-4.1',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
        { type: 'file', file: { file_data: 'data:text/plain;base64,SGVsbG8=', filename: 'a.txt' } },
      ],
    },
  ],
};

fuzzChatFormat(t, {
  client: openaiChatClientCodec,
  upstream: openaiChatUpstreamCodec,
  requests: [fullRequest, mediaTurn],
  contexts,
  results: [
    completion,
    {
      ...completion,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
          finish_reason: 'stop',
        },
      ],
    },
  ],
  streams: fixtureStreams('openai-chat', false).map((frames) => [...frames, { data: '[DONE]' }]),
  errors: [
    { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    {
      error: {
        message: "Invalid value: 'x'.",
        type: 'invalid_request_error',
        param: 'messages[0].role',
        code: 'invalid_value',
      },
    },
  ],
});

// Counterexamples the fuzzer found, kept as plain cases (each failed before its fix).
t.test('regressions', async (t) => {
  const ctx: InboundContext = { headers: {}, params: {}, query: {} };
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const request = openaiChatClientCodec.decodeRequest(
    {
      model: 'gpt-4.1',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: `{"a":${deep}}` } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: `{"a":${deep}}` },
      ],
    },
    ctx,
  );
  for (const up of upstreamCodecs) {
    regression(
      t,
      `tool arguments and a tool result nested 10,000 deep inside a JSON string: the ${up.format} request serializes or is refused`,
      () => {
        JSON.stringify(up.encodeRequest(request, 'm', () => {}));
      },
    );
  }
  const deepResultBody = {
    model: 'gpt-4.1',
    messages: [{ role: 'user', content: 'hi' }, ...chatToolRound('call_1', 'f', '{}', `{"a":${deep}}`)],
  };
  const deepResult = openaiChatClientCodec.decodeRequest(deepResultBody, ctx);
  for (const up of upstreamCodecs) {
    regression(
      t,
      `a tool result nested 10,000 deep inside a JSON string: the ${up.format} request serializes, the result as text`,
      () => {
        const text = JSON.stringify(up.encodeRequest(deepResult, 'm', () => {}));
        t.ok(text.includes(`{\\"a\\":[[[`), `${up.format}: the result travels as the text it was`);
      },
    );
  }
  regression(t, 'brackets inside JSON strings do not count as nesting: such a tool result stays an object', () => {
    const inString = JSON.stringify({ text: `${deep}\\"]` });
    const req = openaiChatClientCodec.decodeRequest(
      {
        ...deepResultBody,
        messages: [...deepResultBody.messages.slice(0, 2), { role: 'tool', tool_call_id: 'call_1', content: inString }],
      },
      ctx,
    );
    const body = geminiUpstreamCodec.encodeRequest(req, 'm', () => {}).body as {
      contents: Array<{ parts: Array<{ functionResponse?: { response: unknown } }> }>;
    };
    t.same(body.contents[2].parts[0].functionResponse?.response, JSON.parse(inString));
  });
  const result = openaiChatUpstreamCodec.decodeResult({
    ...completion,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: `{"a":${deep}}` } }],
        },
        finish_reason: 'tool_calls',
      },
    ],
  });
  for (const c of clientSides()) {
    regression(
      t,
      `an upstream's tool arguments nested 10,000 deep: the ${c.codec.format} answer serializes or is an error`,
      () => {
        JSON.stringify(c.codec.encodeResult(result, c.request));
      },
    );
  }
});

t.test('regressions: a text file whose base64 atob refuses', async (t) => {
  const cases: Array<[string, () => ChatRequest]> = [
    [
      'a Responses input_file',
      () =>
        responsesClientCodec.decodeRequest(
          {
            model: 'm',
            input: [
              {
                role: 'user',
                content: [{ type: 'input_file', filename: 'a.txt', file_data: 'data:text/plain;base64,SGVs!G8=' }],
              },
            ],
          },
          { headers: {}, params: {}, query: {} },
        ),
    ],
    [
      'a Gemini inlineData',
      () =>
        geminiClientCodec.decodeRequest(
          { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'text/plain', data: 'SGV-bG8=' } }] }] },
          { headers: {}, params: { model: 'm' }, query: {} },
        ),
    ],
  ];
  for (const [name, decode] of cases) {
    const request = decode();
    const err = caught(() => openaiChatUpstreamCodec.encodeRequest(request, 'm', () => {}));
    t.type(err, GatewayError, `${name}: the openai-chat upstream request is a 400, not an InvalidCharacterError`);
    t.match((err as GatewayError).param, /^messages\.0\.content\.0/, `${name}: naming the part`);
  }
});
