// Fuzzing every decoder of the openai-chat adapter (test/fuzz/chat-fuzz.ts says the property):
// /v1/chat/completions client requests, upstream completions, upstream chunk streams and errors.
import fc from 'fast-check';
import t from 'tap';
import { openaiChatClientCodec, openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import type { InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { fuzzChatFormat } from './chat-fuzz.ts';
import { fixtureJsons, fixtureStreams } from './fixtures.ts';

const contexts: fc.Arbitrary<InboundContext> = fc.constant({ headers: {}, params: {}, query: {} });

const completion = {
  id: 'chatcmpl-123',
  object: 'chat.completion',
  created: 1735689600,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Hello!',
        reasoning_content: 'Thinking.',
        refusal: null,
        annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com', title: 'Example', start_index: 0, end_index: 5 } }],
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'noop', arguments: '' } },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 256, audio_tokens: 0 } },
};

t.test('openai-chat decoders answer any input with a value or a GatewayError', async (t) => {
  fuzzChatFormat(t, {
    client: openaiChatClientCodec,
    upstream: openaiChatUpstreamCodec,
    requests: fixtureJsons('openai-chat', '.request.json'),
    contexts,
    results: [completion, { ...completion, choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }] }],
    streams: fixtureStreams('openai-chat', false).map((frames) => [...frames, { data: '[DONE]' }]),
    errors: [
      { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      { error: { message: "Invalid value: 'x'.", type: 'invalid_request_error', param: 'messages[0].role', code: 'invalid_value' } },
    ],
  });
});
