// Fuzzing every decoder of the openai-responses adapter (test/fuzz/chat-fuzz.ts says the property):
// /v1/responses client requests, upstream response objects, upstream event streams and errors.
import fc from 'fast-check';
import t from 'tap';
import { createResponsesClientCodec, responsesUpstreamCodec, sequentialIds } from '../../adapters/openai-responses/index.ts';
import type { InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { fuzzChatFormat } from './chat-fuzz.ts';
import { finalResponses, fixtureJsons, fixtureStreams } from './fixtures.ts';

const contexts: fc.Arbitrary<InboundContext> = fc.record({
  headers: fc.record({ 'openai-beta': fc.oneof(fc.constantFrom('responses=v1', ''), fc.string({ maxLength: 12 })) }, { requiredKeys: [] }),
  params: fc.constant({}),
  query: fc.constant({}),
});

t.test('openai-responses decoders answer any input with a value or a GatewayError', async (t) => {
  fuzzChatFormat(t, {
    client: createResponsesClientCodec(sequentialIds()),
    upstream: responsesUpstreamCodec,
    requests: fixtureJsons('openai-responses', '.request.json'),
    contexts,
    results: finalResponses('openai-responses'),
    streams: fixtureStreams('openai-responses', true),
    errors: [
      { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      { error: { message: "Invalid 'input[0]'.", type: 'invalid_request_error', param: 'input[0]', code: 'invalid_value' } },
    ],
  });
});
